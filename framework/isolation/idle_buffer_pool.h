// Shared buffers the judge has finished with but keeps, still mapped by its worker, for the next
// tensor of exactly the same size. A property trial or a correctness case then costs no new
// allocation, no export (a memfd or a CUDA IPC handle), no mapping in the worker and no free
// (cudaFree waits for the whole device). Exact sizes only: every byte of a reused buffer is
// either the tensor's data, overwritten or poisoned before each call, or a redzone, armed again,
// so nothing of an earlier call remains where the kernel can read it. Bookkeeping only: no memory
// is touched, so it is tested on the CPU (shared_tensors.cpp owns the memory).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace rkt {

/// How many bytes of idle buffers a judge keeps per device kind before it frees the oldest.
inline constexpr std::uint64_t kIdleSharedBufferBytesCuda = 8ull << 30;  // [bytes]
inline constexpr std::uint64_t kIdleSharedBufferBytesCpu = 1ull << 30;   // [bytes]

/// An idle buffer: its id (what the worker knows it by), where it starts, its size, and whether
/// the worker maps it with an inaccessible page after it (a reuse must be mapped the same way).
struct IdleBuffer {
  std::uint64_t id = 0;
  void* base = nullptr;
  std::uint64_t bytes = 0;
  bool inaccessible_page_after = false;
};

class IdleBufferPool {
 public:
  explicit IdleBufferPool(std::uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// Keeps `buffer`; returns the buffers (oldest first) that no longer fit under the capacity,
  /// for the caller to free. A buffer larger than the whole capacity is returned at once.
  std::vector<IdleBuffer> keep(const IdleBuffer& buffer);
  /// The most recently kept buffer of exactly `bytes`, mapped with an inaccessible page after it
  /// or not as asked, taken out of the pool; or nothing.
  std::optional<IdleBuffer> take(std::uint64_t bytes, bool inaccessible_page_after);
  /// Every kept buffer, taken out of the pool (oldest first).
  std::vector<IdleBuffer> take_all();

  std::uint64_t idle_bytes() const { return idle_bytes_; }
  std::size_t size() const { return idle_.size(); }

 private:
  std::uint64_t capacity_;
  std::uint64_t idle_bytes_ = 0;
  std::deque<IdleBuffer> idle_;  ///< oldest first
};

}  // namespace rkt
