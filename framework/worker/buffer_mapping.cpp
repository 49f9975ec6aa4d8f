#include "framework/worker/buffer_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {

BufferMapping::~BufferMapping() {
  for (const auto& [id, mapped] : buffers_) unmap(mapped);
}

void BufferMapping::unmap(const Mapped& mapped) {
  if (mapped.device == Device::cpu) {
    munmap(mapped.base, mapped.mapped_bytes);
  } else {
#if RKT_WITH_CUDA
    cudaIpcCloseMemHandle(mapped.base);
#endif
  }
}

void BufferMapping::map(const std::vector<wire::SharedBuffer>& buffers, std::vector<int>& fds) {
  std::size_t next_fd = 0;
  for (const wire::SharedBuffer& buffer : buffers) {
    if (buffers_.count(buffer.id)) throw wire::WireError("buffer " + std::to_string(buffer.id) + " shared twice");
    Mapped mapped;
    mapped.bytes = buffer.bytes;
    mapped.device = buffer.device;
    if (buffer.device == Device::cpu) {
      if (next_fd >= fds.size()) throw wire::WireError("a CPU buffer came without its descriptor");
      const int fd = fds[next_fd++];
      mapped.mapped_bytes = buffer.bytes;
      if (buffer.inaccessible_page_after) {
        // The buffer ends where an inaccessible page begins: reserve both, map the buffer over
        // the first part, so a read past its end faults instead of reading a neighbour.
        const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
        if (buffer.bytes % page != 0) {
          close(fd);
          throw wire::WireError("a buffer with an inaccessible page after it is not a whole number of pages");
        }
        mapped.mapped_bytes = buffer.bytes + page;
        void* reserved = mmap(nullptr, mapped.mapped_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        mapped.base = reserved == MAP_FAILED
                          ? MAP_FAILED
                          : mmap(reserved, buffer.bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
        if (reserved != MAP_FAILED && mapped.base == MAP_FAILED) munmap(reserved, mapped.mapped_bytes);
      } else {
        mapped.base = mmap(nullptr, buffer.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      }
      close(fd);
      if (mapped.base == MAP_FAILED) {
        throw wire::WireError(std::string("mmap of a shared buffer failed: ") + std::strerror(errno));
      }
    } else {
#if RKT_WITH_CUDA
      cudaIpcMemHandle_t handle;
      if (buffer.cuda_ipc_handle.size() != sizeof handle) throw wire::WireError("bad CUDA IPC handle");
      std::memcpy(&handle, buffer.cuda_ipc_handle.data(), sizeof handle);
      const cudaError_t status =
          cudaIpcOpenMemHandle(&mapped.base, handle, cudaIpcMemLazyEnablePeerAccess);
      if (status != cudaSuccess) {
        throw wire::WireError(std::string("cudaIpcOpenMemHandle failed: ") + cudaGetErrorString(status));
      }
#else
      throw wire::WireError("this worker was built without CUDA");
#endif
    }
    buffers_[buffer.id] = mapped;
  }
  for (std::size_t i = next_fd; i < fds.size(); ++i) close(fds[i]);
}

void BufferMapping::release(const std::vector<std::uint64_t>& ids) {
  for (std::uint64_t id : ids) {
    const auto found = buffers_.find(id);
    if (found == buffers_.end()) continue;
    unmap(found->second);
    buffers_.erase(found);
  }
}

void BufferMapping::release_all() {
  for (const auto& [id, mapped] : buffers_) unmap(mapped);
  buffers_.clear();
}

void* BufferMapping::address_of(const wire::TensorRef& tensor) const {
  const auto found = buffers_.find(tensor.buffer);
  if (found == buffers_.end()) throw wire::WireError("unknown buffer " + std::to_string(tensor.buffer));
  // The furthest element the view can reach must lie inside the buffer.
  std::uint64_t extent = element_size(tensor.dtype);
  bool empty = false;
  for (std::size_t d = 0; d < tensor.sizes.size(); ++d) {
    if (tensor.sizes[d] < 0 || tensor.strides[d] < 0) throw wire::WireError("negative size or stride");
    if (tensor.sizes[d] == 0) empty = true;
    else extent += static_cast<std::uint64_t>(tensor.sizes[d] - 1) * tensor.strides[d] * element_size(tensor.dtype);
  }
  if (!empty && (tensor.offset_bytes > found->second.bytes || extent > found->second.bytes - tensor.offset_bytes)) {
    throw wire::WireError("a tensor reaches past the end of its buffer");
  }
  if (tensor.device != found->second.device) throw wire::WireError("a tensor's device differs from its buffer's");
  return static_cast<char*>(found->second.base) + tensor.offset_bytes;
}

}  // namespace rkt
