// Offsets inside one slab of memory: first fit over a free list, neighbours merged on free. The
// judge carves a GPU's small shared buffers out of a few large allocations, each exported to the
// worker once (shared_tensors.cpp), so that a property trial's buffers cost no cudaMalloc, no
// CUDA IPC handle opened in the worker and no cudaFree (which waits for the whole device).
// Offsets only: no memory is touched, so it is tested on the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace rkt {

/// A slab of a GPU's shared memory: how large, and the largest buffer carved out of one (larger
/// buffers get an allocation of their own, as the sanitizer's exact-size buffers do).
inline constexpr std::uint64_t kSharedSlabBytes = 256ull << 20;          // [bytes]
inline constexpr std::uint64_t kLargestSlabCarvedBytes = 32ull << 20;    // [bytes]
/// Where carved buffers start: a multiple of this, as cudaMalloc's allocations are (so a layout
/// that places data at an offset from an aligned start behaves as in its own allocation).
inline constexpr std::uint64_t kSlabCarveAlignmentBytes = 512;           // [bytes]

class SlabAllocator {
 public:
  explicit SlabAllocator(std::uint64_t capacity_bytes);

  /// The offset of `bytes` free bytes (rounded up to the carve alignment), or nothing when no
  /// free range is large enough.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes);
  /// Returns what allocate(bytes) gave at `offset`.
  void release(std::uint64_t offset, std::uint64_t bytes);

  std::uint64_t capacity_bytes() const { return capacity_; }
  std::uint64_t free_bytes() const;
  /// Separate free ranges (1 when everything is free).
  std::size_t free_ranges() const { return free_.size(); }

 private:
  std::uint64_t capacity_;
  std::map<std::uint64_t, std::uint64_t> free_;  ///< offset -> length, never adjacent
};

}  // namespace rkt
