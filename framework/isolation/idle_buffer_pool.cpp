#include "framework/isolation/idle_buffer_pool.h"

#include <utility>

namespace rkt {

std::vector<IdleBuffer> IdleBufferPool::keep(const IdleBuffer& buffer) {
  if (buffer.bytes > capacity_) return {buffer};
  idle_.push_back(buffer);
  idle_bytes_ += buffer.bytes;
  std::vector<IdleBuffer> freed;
  while (idle_bytes_ > capacity_) {
    freed.push_back(idle_.front());
    idle_bytes_ -= idle_.front().bytes;
    idle_.pop_front();
  }
  return freed;
}

std::optional<IdleBuffer> IdleBufferPool::take(std::uint64_t bytes, bool inaccessible_page_after) {
  for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
    if (it->bytes != bytes || it->inaccessible_page_after != inaccessible_page_after) continue;
    const IdleBuffer found = *it;
    idle_.erase(std::next(it).base());
    idle_bytes_ -= found.bytes;
    return found;
  }
  return std::nullopt;
}

std::vector<IdleBuffer> IdleBufferPool::take_all() {
  std::vector<IdleBuffer> all(idle_.begin(), idle_.end());
  idle_.clear();
  idle_bytes_ = 0;
  return all;
}

}  // namespace rkt
