// The worker's view of the buffers the judge shares: CPU memfds mapped into this process, CUDA
// allocations opened through IPC handles. A buffer keeps its address until the judge releases it,
// so "the same buffer" means the same pointer to the kernel, as it would in-process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"

namespace rkt {

class BufferMapping {
 public:
  BufferMapping() = default;
  ~BufferMapping();
  BufferMapping(const BufferMapping&) = delete;
  BufferMapping& operator=(const BufferMapping&) = delete;

  /// Maps `buffers`; CPU buffers take the next descriptor of `fds` each (closed once mapped).
  void map(const std::vector<wire::SharedBuffer>& buffers, std::vector<int>& fds);
  void release(const std::vector<std::uint64_t>& ids);
  /// Unmaps every buffer (a new judge adopted the worker: the old judge's buffers are gone).
  void release_all();
  /// The address of `tensor`'s first element; throws wire::WireError when the tensor does not lie
  /// inside its buffer or the buffer is unknown.
  void* address_of(const wire::TensorRef& tensor) const;

 private:
  struct Mapped {
    void* base = nullptr;
    std::uint64_t bytes = 0;
    std::uint64_t mapped_bytes = 0;  // bytes, plus the inaccessible page after them if asked for
    Device device = Device::cpu;
  };
  void unmap(const Mapped& mapped);
  std::map<std::uint64_t, Mapped> buffers_;
};

}  // namespace rkt
