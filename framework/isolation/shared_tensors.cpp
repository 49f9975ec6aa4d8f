#include "framework/isolation/shared_tensors.h"

#include <ATen/ATen.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

#include "framework/base/environment_switch.h"
#include "framework/base/phase_times.h"
#include "framework/isolation/idle_buffer_pool.h"
#include "framework/isolation/redzones.h"
#include "framework/isolation/slab_allocator.h"
#include "framework/runtime/torch_bridge.h"

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {
namespace {

struct Allocation {
  wire::SharedBuffer buffer;
  int fd = -1;
  /// Carved out of a slab (GPU): the slab's index and where, in it, this allocation starts; its
  /// `buffer` is the slab's (bytes: the slab's). -1: an allocation of its own.
  int slab = -1;
  std::uint64_t slab_offset = 0;
  std::uint64_t bytes = 0;  ///< This allocation's own size.
  /// Kept for a buffer of the same size when freed (idle_buffer_pool.h); the sanitizer's
  /// exact-size buffers are not.
  bool reusable = false;
};

// A GPU allocation exported to workers once; small shared buffers are carved out of it.
struct Slab {
  void* base = nullptr;
  wire::SharedBuffer buffer;
  SlabAllocator carver;
};

struct Registry {
  std::mutex mutex;
  std::map<std::uintptr_t, Allocation> by_base;  // keyed by the allocation's first byte
  std::vector<std::uint64_t> released;
  std::vector<void*> cuda_to_free;  // freed once the worker has closed its handles
  std::vector<Slab> slabs;          // kept for the process's life, mapped by each worker once
  IdleBufferPool idle_cpu{kIdleSharedBufferBytesCpu};
  IdleBufferPool idle_cuda{kIdleSharedBufferBytesCuda};
  std::map<std::uint64_t, Allocation> idle;  // by buffer id: the allocations the pools hold
  // Unique across the judge processes that may share one worker (an adopted worker keeps no
  // mapping of an earlier judge, but ids never collide either way).
  std::uint64_t next_id = (static_cast<std::uint64_t>(::getpid()) << 32) | 1;
};

Registry& registry() {
  static Registry* instance = new Registry;  // never destroyed: deleters may run at exit
  return *instance;
}

// RKT_SHARED_BUFFER_POOL=0 frees every buffer when its tensor goes (each call then allocates,
// exports and maps its own), to measure what the pool saves.
bool reuse_enabled() {
  static const bool enabled = on_unless_set_to_zero("RKT_SHARED_BUFFER_POOL");
  return enabled;
}

IdleBufferPool& idle_pool(Registry& shared, Device device) {
  return device == Device::cpu ? shared.idle_cpu : shared.idle_cuda;
}

// Gives `allocation`'s memory back (shared.mutex held): the worker is told to let go of it with
// the next request; CUDA memory is freed once it has (release_confirmed).
void free_allocation(Registry& shared, void* base, const Allocation& allocation) {
  shared.released.push_back(allocation.buffer.id);
  if (allocation.buffer.device == Device::cpu) {
    munmap(base, allocation.buffer.bytes);
    close(allocation.fd);
  } else {
    shared.cuda_to_free.push_back(base);
  }
}

void release(void* data) {
  ScopedPhase phase(Phase::buffer_sharing);
  forget_redzones(data);
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  auto found = shared.by_base.upper_bound(reinterpret_cast<std::uintptr_t>(data));
  if (found == shared.by_base.begin()) return;
  --found;
  void* base = reinterpret_cast<void*>(found->first);
  const Allocation allocation = found->second;
  shared.by_base.erase(found);
  if (allocation.slab >= 0) {
    // The worker keeps the slab mapped; the range is free for the judge's next buffer (the
    // worker's calls on it have finished: each request synchronises before its reply).
    shared.slabs[static_cast<std::size_t>(allocation.slab)].carver.release(allocation.slab_offset,
                                                                           allocation.bytes);
    return;
  }
  if (allocation.reusable && reuse_enabled()) {
    // Kept, still mapped by the worker, for the next buffer of this size.
    shared.idle[allocation.buffer.id] = allocation;
    for (const IdleBuffer& evicted : idle_pool(shared, allocation.buffer.device)
                                         .keep({allocation.buffer.id, base, allocation.buffer.bytes,
                                                allocation.buffer.inaccessible_page_after})) {
      free_allocation(shared, evicted.base, shared.idle.at(evicted.id));
      shared.idle.erase(evicted.id);
    }
    return;
  }
  free_allocation(shared, base, allocation);
}

// An idle buffer of exactly `allocation`'s size and mapping, taken for it; its base, or nullptr.
void* reuse_idle(Allocation& allocation) {
  if (!allocation.reusable || !reuse_enabled()) return nullptr;
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  const std::optional<IdleBuffer> found =
      idle_pool(shared, allocation.buffer.device)
          .take(allocation.bytes, allocation.buffer.inaccessible_page_after);
  if (!found) return nullptr;
  allocation = shared.idle.at(found->id);
  shared.idle.erase(found->id);
  return found->base;
}

#if RKT_WITH_CUDA
// cudaMalloc of `bytes` exported through a CUDA IPC handle into `buffer`.
void* exported_cuda_allocation(std::uint64_t bytes, wire::SharedBuffer& buffer) {
  void* base = nullptr;
  cudaError_t status = cudaMalloc(&base, bytes);
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("cudaMalloc of a shared buffer failed: ") + cudaGetErrorString(status));
  }
  cudaIpcMemHandle_t handle;
  status = cudaIpcGetMemHandle(&handle, base);
  if (status != cudaSuccess) {
    cudaFree(base);
    throw std::runtime_error(std::string("cudaIpcGetMemHandle failed: ") + cudaGetErrorString(status));
  }
  buffer.bytes = bytes;
  buffer.device = Device::cuda;
  buffer.cuda_ipc_handle.assign(reinterpret_cast<const char*>(&handle), sizeof handle);
  return base;
}

// Carves `allocation` out of a slab (a new one when none has room); its base, or nullptr when
// the buffer is not one to carve: too large, or one whose allocation must be exactly its data
// (the sanitizer's, whose memcheck checks accesses against allocations). Off unless
// RKT_SHARED_DEVICE_SLABS=1: on the H200 one kernel's 20 cases passed with it (run 20), which is
// not yet the measurement across the shipped kernels that making it the default needs.
void* carve_from_slab(Allocation& allocation, const BufferPlacement& placement) {
  static const bool enabled = [] {
    const char* setting = std::getenv("RKT_SHARED_DEVICE_SLABS");
    return setting != nullptr && std::string(setting) == "1";
  }();
  if (!enabled || !placement.redzones || allocation.bytes > kLargestSlabCarvedBytes) return nullptr;
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  for (std::size_t i = 0; i <= shared.slabs.size(); ++i) {
    if (i == shared.slabs.size()) {
      Slab slab{nullptr, {}, SlabAllocator(kSharedSlabBytes)};
      slab.base = exported_cuda_allocation(kSharedSlabBytes, slab.buffer);
      slab.buffer.id = shared.next_id++;
      shared.slabs.push_back(std::move(slab));
    }
    Slab& slab = shared.slabs[i];
    if (const auto offset = slab.carver.allocate(allocation.bytes)) {
      allocation.buffer = slab.buffer;
      allocation.slab = static_cast<int>(i);
      allocation.slab_offset = *offset;
      return static_cast<char*>(slab.base) + *offset;
    }
  }
  return nullptr;
}
#endif

}  // namespace

at::Tensor allocate_shared_tensor(at::IntArrayRef sizes, c10::ScalarType dtype, Device device,
                                  const BufferPlacement& placement) {
  ScopedPhase phase(Phase::buffer_sharing);
  std::int64_t elements = 1;
  for (std::int64_t size : sizes) elements *= size;
  // Redzones on both sides; an inaccessible page after the data only where the worker can map
  // one (CPU memory).
  const GuardedLayout layout = guarded_layout(
      elements * static_cast<std::int64_t>(c10::elementSize(dtype)),
      placement_on(device, placement));
  const std::uint64_t bytes = static_cast<std::uint64_t>(layout.total_bytes);
  Allocation allocation;
  allocation.bytes = bytes;
  allocation.buffer.bytes = bytes;
  allocation.buffer.device = device;
  allocation.buffer.inaccessible_page_after = layout.inaccessible_page_after;
  allocation.reusable = placement.redzones;
  void* base = reuse_idle(allocation);
  if (base != nullptr) {
    // The same buffer id: the worker has it mapped already.
  } else if (device == Device::cpu) {
    allocation.fd = memfd_create("rkt-shared-tensor", MFD_CLOEXEC);
    if (allocation.fd < 0 || ftruncate(allocation.fd, static_cast<off_t>(bytes)) != 0) {
      throw std::runtime_error(std::string("could not create shared memory: ") + std::strerror(errno));
    }
    base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, allocation.fd, 0);
    if (base == MAP_FAILED) {
      close(allocation.fd);
      throw std::runtime_error(std::string("could not map shared memory: ") + std::strerror(errno));
    }
  } else {
#if RKT_WITH_CUDA
    base = carve_from_slab(allocation, placement);
    if (base == nullptr) base = exported_cuda_allocation(bytes, allocation.buffer);
#else
    throw std::runtime_error("this build has no CUDA support");
#endif
  }
  {
    Registry& shared = registry();
    std::lock_guard<std::mutex> lock(shared.mutex);
    if (allocation.slab < 0 && allocation.buffer.id == 0) allocation.buffer.id = shared.next_id++;
    shared.by_base[reinterpret_cast<std::uintptr_t>(base)] = allocation;
  }
  void* data = static_cast<char*>(base) + layout.data_offset;
  register_redzones(data, layout, device);
  return at::from_blob(data, sizes, [](void* first) { release(first); },
                       at::TensorOptions().dtype(dtype).device(to_torch_device(device)));
}

at::Tensor shared_copy(const at::Tensor& tensor, Device device, const BufferPlacement& placement) {
  ScopedPhase phase(Phase::buffer_sharing);
  at::Tensor copy = allocate_shared_tensor(tensor.sizes(), tensor.scalar_type(), device, placement);
  copy.copy_(tensor);
  return copy;
}

std::optional<SharedLocation> locate_shared(const at::Tensor& tensor) {
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  const auto address = reinterpret_cast<std::uintptr_t>(tensor.data_ptr());
  auto found = shared.by_base.upper_bound(address);
  if (found == shared.by_base.begin()) return std::nullopt;
  --found;
  const Allocation& allocation = found->second;
  if (address >= found->first + allocation.bytes) return std::nullopt;
  // Offsets are the worker's: from the start of the buffer it maps (a slab's, when carved).
  return SharedLocation{allocation.buffer, allocation.fd, allocation.slab_offset + (address - found->first)};
}

wire::TensorRef tensor_reference(const at::Tensor& tensor, const SharedLocation& location) {
  wire::TensorRef ref;
  ref.buffer = location.buffer.id;
  ref.offset_bytes = location.offset_bytes;
  ref.sizes = tensor.sizes().vec();
  ref.strides = tensor.strides().vec();
  ref.dtype = to_dtype(tensor.scalar_type());
  ref.device = to_device(tensor.device());
  return ref;
}

std::vector<std::uint64_t> take_released_buffers() {
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  return std::exchange(shared.released, {});
}

std::uint64_t drop_idle_shared_buffers(Device device) {
  Registry& shared = registry();
  std::lock_guard<std::mutex> lock(shared.mutex);
  std::uint64_t dropped = 0;
  for (const IdleBuffer& idle : idle_pool(shared, device).take_all()) {
    free_allocation(shared, idle.base, shared.idle.at(idle.id));
    shared.idle.erase(idle.id);
    dropped += idle.bytes;
  }
  return dropped;
}

void release_confirmed() {
  ScopedPhase phase(Phase::buffer_sharing);
  std::vector<void*> to_free;
  {
    Registry& shared = registry();
    std::lock_guard<std::mutex> lock(shared.mutex);
    to_free = std::exchange(shared.cuda_to_free, {});
  }
#if RKT_WITH_CUDA
  for (void* base : to_free) cudaFree(base);
#endif
}

}  // namespace rkt
