#include "framework/isolation/redzones.h"

#include <ATen/ATen.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>

#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"
#include "rkt/task.h"

namespace rkt {
namespace {

struct Guarded {
  std::uintptr_t base = 0;  // the allocation's first byte
  GuardedLayout layout;
  std::uint64_t pattern_key = 0;
};

struct Registry {
  std::mutex mutex;
  std::map<std::uintptr_t, Guarded> by_data;
  std::uint64_t next_key = 0;
};

Registry& registry() {
  static Registry* instance = [] {
    auto* fresh = new Registry;  // never destroyed: deleters may run at exit
    std::random_device entropy;  // a fresh pattern per process, then per call
    fresh->next_key = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
    return fresh;
  }();
  return *instance;
}

std::int64_t round_up(std::int64_t value, std::int64_t step) { return (value + step - 1) / step * step; }
std::int64_t round_down(std::int64_t value, std::int64_t step) { return value / step * step; }

std::uint64_t mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

// The pattern of one redzone (side 0: before, 1: after) for one arming.
std::vector<std::uint8_t> pattern(std::uint64_t key, int side, std::int64_t bytes) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(bytes));
  std::uint64_t word = 0;
  for (std::int64_t i = 0; i < bytes; ++i) {
    if (i % 8 == 0) word = mix(mix(key * 2 + side) ^ static_cast<std::uint64_t>(i / 8));
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(word >> (8 * (i % 8)));
  }
  return out;
}

// A byte view of [address, address + bytes) on `device`, not owning the memory.
at::Tensor bytes_at(std::uintptr_t address, std::int64_t bytes, const c10::Device& device) {
  return at::from_blob(reinterpret_cast<void*>(address), {bytes},
                       at::TensorOptions().dtype(at::kByte).device(device));
}

void write_bytes(std::uintptr_t address, const std::vector<std::uint8_t>& bytes, const c10::Device& device) {
  if (bytes.empty()) return;
  if (device.is_cpu()) {
    std::memcpy(reinterpret_cast<void*>(address), bytes.data(), bytes.size());
    return;
  }
  at::Tensor host = at::from_blob(const_cast<std::uint8_t*>(bytes.data()),
                                  {static_cast<std::int64_t>(bytes.size())}, at::kByte);
  bytes_at(address, static_cast<std::int64_t>(bytes.size()), device).copy_(host);
}

std::vector<std::uint8_t> read_bytes(std::uintptr_t address, std::int64_t bytes, const c10::Device& device) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(bytes));
  if (bytes == 0) return out;
  if (device.is_cpu()) {
    std::memcpy(out.data(), reinterpret_cast<const void*>(address), out.size());
    return out;
  }
  at::Tensor host = bytes_at(address, bytes, device).cpu();
  std::memcpy(out.data(), host.data_ptr(), out.size());
  return out;
}

// The guarded allocation whose data `tensor` is, with a fresh pattern key when `rearm`.
std::optional<Guarded> lookup(const at::Tensor& tensor, bool rearm = false) {
  if (!tensor.defined() || tensor.data_ptr() == nullptr) return std::nullopt;
  Registry& guarded = registry();
  std::lock_guard<std::mutex> lock(guarded.mutex);
  const auto found = guarded.by_data.find(reinterpret_cast<std::uintptr_t>(tensor.data_ptr()));
  if (found == guarded.by_data.end()) return std::nullopt;
  // The tensor must cover exactly the data (a view of part of it has no redzone of its own).
  if (static_cast<std::int64_t>(tensor.nbytes()) != found->second.layout.data_bytes) return std::nullopt;
  if (rearm) found->second.pattern_key = mix(guarded.next_key++);
  return found->second;
}

// The changed bytes of one side, described; empty when none changed.
std::string changed_side(const Guarded& guarded, int side, const c10::Device& device) {
  const GuardedLayout& layout = guarded.layout;
  const std::uintptr_t start =
      side == 0 ? guarded.base : guarded.base + static_cast<std::uintptr_t>(layout.data_offset + layout.data_bytes);
  const std::int64_t bytes =
      side == 0 ? layout.data_offset : layout.total_bytes - layout.data_offset - layout.data_bytes;
  const std::vector<std::uint8_t> now = read_bytes(start, bytes, device);
  const std::vector<std::uint8_t> armed = pattern(guarded.pattern_key, side, bytes);
  std::int64_t first = -1, last = -1, changed = 0;
  for (std::int64_t i = 0; i < bytes; ++i) {
    if (now[static_cast<std::size_t>(i)] == armed[static_cast<std::size_t>(i)]) continue;
    if (first < 0) first = i;
    last = i;
    ++changed;
  }
  if (changed == 0) return "";
  std::ostringstream text;
  if (side == 1) {
    text << changed << " byte" << (changed == 1 ? "" : "s") << " after the end of";
    text << "|(bytes +" << first << " to +" << last << " past its last byte)";
  } else {
    // Offsets before the first element, nearest the data last.
    text << changed << " byte" << (changed == 1 ? "" : "s") << " before the start of";
    text << "|(bytes -" << (bytes - first) << " to -" << (bytes - last) << " before its first byte)";
  }
  return text.str();
}

}  // namespace

BufferPlacement placement_on(Device device, BufferPlacement placement) {
  if (device != Device::cpu) placement.inaccessible_page_after = false;
  return placement;
}

std::int64_t page_bytes() {
  static const std::int64_t bytes = ::sysconf(_SC_PAGESIZE);
  return bytes;
}

GuardedLayout guarded_layout(std::int64_t data_bytes, const BufferPlacement& placement) {
  GuardedLayout layout;
  layout.data_bytes = data_bytes;
  if (!placement.redzones) {
    layout.total_bytes = std::max<std::int64_t>(1, data_bytes);
    return layout;
  }
  if (placement.inaccessible_page_after) {
    const std::int64_t alignment = std::max<std::int64_t>(1, placement.start_alignment_bytes);
    layout.total_bytes = round_up(defaults::kRedzoneBytes + alignment + data_bytes, page_bytes());
    layout.data_offset = round_down(layout.total_bytes - data_bytes, alignment);
    layout.inaccessible_page_after = true;
    return layout;
  }
  layout.data_offset = defaults::kRedzoneBytes + placement.misalignment_bytes;
  layout.total_bytes = layout.data_offset + data_bytes + defaults::kRedzoneBytes;
  return layout;
}

void register_redzones(const void* data, const GuardedLayout& layout, Device) {
  if (layout.data_offset == 0 && layout.total_bytes <= std::max<std::int64_t>(1, layout.data_bytes)) return;
  Registry& guarded = registry();
  std::lock_guard<std::mutex> lock(guarded.mutex);
  Guarded entry;
  entry.base = reinterpret_cast<std::uintptr_t>(data) - static_cast<std::uintptr_t>(layout.data_offset);
  entry.layout = layout;
  guarded.by_data[reinterpret_cast<std::uintptr_t>(data)] = entry;
}

void forget_redzones(const void* data) {
  Registry& guarded = registry();
  std::lock_guard<std::mutex> lock(guarded.mutex);
  guarded.by_data.erase(reinterpret_cast<std::uintptr_t>(data));
}

at::Tensor guarded_empty(at::IntArrayRef sizes, c10::ScalarType dtype, Device device,
                         const BufferPlacement& placement) {
  std::int64_t elements = 1;
  for (std::int64_t size : sizes) elements *= size;
  const GuardedLayout layout = guarded_layout(elements * static_cast<std::int64_t>(c10::elementSize(dtype)),
                                              placement_on(device, placement));
  const at::TensorOptions options = at::TensorOptions().dtype(dtype).device(to_torch_device(device));
  char* data = nullptr;
  std::function<void(void*)> release;
  if (device == Device::cpu && layout.inaccessible_page_after) {
    const std::size_t mapped = static_cast<std::size_t>(layout.total_bytes + page_bytes());
    void* base = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) throw std::runtime_error("could not map a guarded buffer");
    ::mprotect(static_cast<char*>(base) + layout.total_bytes, static_cast<std::size_t>(page_bytes()), PROT_NONE);
    data = static_cast<char*>(base) + layout.data_offset;
    release = [base, mapped](void* d) {
      forget_redzones(d);
      ::munmap(base, mapped);
    };
  } else if (device == Device::cpu) {
    void* base = std::aligned_alloc(static_cast<std::size_t>(defaults::kBufferAlignmentBytes),
                                    static_cast<std::size_t>(round_up(layout.total_bytes, defaults::kBufferAlignmentBytes)));
    if (base == nullptr) throw std::runtime_error("could not allocate a guarded buffer");
    data = static_cast<char*>(base) + layout.data_offset;
    release = [base](void* d) {
      forget_redzones(d);
      std::free(base);
    };
  } else {
    // The caching allocator's blocks start 512-byte aligned; the backing tensor lives as long
    // as the view.
    at::Tensor backing = at::empty({layout.total_bytes + defaults::kBufferAlignmentBytes},
                                   options.dtype(at::kByte));
    const auto address = reinterpret_cast<std::uintptr_t>(backing.data_ptr());
    const std::uintptr_t base = static_cast<std::uintptr_t>(
        round_up(static_cast<std::int64_t>(address), defaults::kBufferAlignmentBytes));
    data = reinterpret_cast<char*>(base) + layout.data_offset;
    release = [backing](void* d) mutable {
      forget_redzones(d);
      backing.reset();
    };
  }
  register_redzones(data, layout, device);
  return at::from_blob(data, sizes, release, options);
}

at::Tensor guarded_copy(const at::Tensor& tensor, Device device, const BufferPlacement& placement) {
  at::Tensor copy = guarded_empty(tensor.sizes(), tensor.scalar_type(), device, placement);
  copy.copy_(tensor);
  return copy;
}

bool has_redzones(const at::Tensor& tensor) { return lookup(tensor).has_value(); }

void arm_redzones(const std::vector<at::Tensor>& tensors) {
  for (const at::Tensor& tensor : tensors) {
    const std::optional<Guarded> armed = lookup(tensor, /*rearm=*/true);
    if (!armed) continue;
    const GuardedLayout& layout = armed->layout;
    write_bytes(armed->base, pattern(armed->pattern_key, 0, layout.data_offset), tensor.device());
    write_bytes(armed->base + static_cast<std::uintptr_t>(layout.data_offset + layout.data_bytes),
                pattern(armed->pattern_key, 1, layout.total_bytes - layout.data_offset - layout.data_bytes),
                tensor.device());
  }
}

std::string task_buffer_name(const std::string& task_id, bool input, std::size_t index) {
  if (const TaskSpec* task = find_task(task_id)) {
    if (input && index < task->inputs().size()) return "input '" + task->inputs()[index].name + "'";
    if (!input && index < task->output_names().size()) return "output '" + task->output_names()[index] + "'";
  }
  return std::string(input ? "input " : "output ") + std::to_string(index);
}

void check_redzones(const std::string& task_id, const std::vector<at::Tensor>& inputs,
                    const std::vector<at::Tensor>& outputs) {
  for (const auto* group : {&outputs, &inputs}) {
    for (std::size_t i = 0; i < group->size(); ++i) {
      const std::optional<Guarded> guarded = lookup((*group)[i]);
      if (!guarded) continue;
      for (int side : {1, 0}) {
        const std::string changed = changed_side(*guarded, side, (*group)[i].device());
        if (changed.empty()) continue;
        const std::size_t bar = changed.find('|');
        throw OutOfBoundsWrite("out-of-bounds write: the kernel changed " + changed.substr(0, bar) + " " +
                               task_buffer_name(task_id, group == &inputs, i) + " " + changed.substr(bar + 1) +
                               "; every buffer has a " + std::to_string(defaults::kRedzoneBytes) +
                               "-byte redzone on each side, armed with a fresh pattern before each call");
      }
    }
  }
}

}  // namespace rkt
