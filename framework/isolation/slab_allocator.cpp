#include "framework/isolation/slab_allocator.h"

#include <stdexcept>
#include <string>

namespace rkt {
namespace {

std::uint64_t carved_size(std::uint64_t bytes) {
  const std::uint64_t rounded = (bytes + kSlabCarveAlignmentBytes - 1) / kSlabCarveAlignmentBytes;
  return (rounded == 0 ? 1 : rounded) * kSlabCarveAlignmentBytes;
}

}  // namespace

SlabAllocator::SlabAllocator(std::uint64_t capacity_bytes)
    : capacity_(capacity_bytes / kSlabCarveAlignmentBytes * kSlabCarveAlignmentBytes) {
  if (capacity_ > 0) free_[0] = capacity_;
}

std::optional<std::uint64_t> SlabAllocator::allocate(std::uint64_t bytes) {
  const std::uint64_t size = carved_size(bytes);
  for (auto range = free_.begin(); range != free_.end(); ++range) {
    if (range->second < size) continue;
    const std::uint64_t offset = range->first;
    const std::uint64_t left = range->second - size;
    free_.erase(range);
    if (left > 0) free_[offset + size] = left;
    return offset;
  }
  return std::nullopt;
}

void SlabAllocator::release(std::uint64_t offset, std::uint64_t bytes) {
  const std::uint64_t size = carved_size(bytes);
  if (offset % kSlabCarveAlignmentBytes != 0 || offset + size > capacity_) {
    throw std::logic_error("released a range the slab never gave: offset " + std::to_string(offset));
  }
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first < offset + size) {
    throw std::logic_error("released a free range twice: offset " + std::to_string(offset));
  }
  std::uint64_t start = offset, length = size;
  if (next != free_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second > offset) {
      throw std::logic_error("released a free range twice: offset " + std::to_string(offset));
    }
    if (previous->first + previous->second == offset) {
      start = previous->first;
      length += previous->second;
      free_.erase(previous);
    }
  }
  if (next != free_.end() && next->first == offset + size) {
    length += next->second;
    free_.erase(next);
  }
  free_[start] = length;
}

std::uint64_t SlabAllocator::free_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [offset, length] : free_) total += length;
  return total;
}

}  // namespace rkt
