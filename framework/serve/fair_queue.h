// Requests waiting for a judge, served round-robin across clients: a client that sends a hundred
// files makes another client's one file wait for one judgement at most, not for a hundred.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

namespace rkt {

template <typename Job>
class FairQueue {
 public:
  void push(std::uint64_t client, Job job) {
    {
      const std::lock_guard<std::mutex> hold(mutex_);
      queues_[client].push_back(std::move(job));
    }
    ready_.notify_one();
  }

  /// The next client's oldest job (clients taken in turn), waiting while none is queued; empty
  /// once `stop` is set.
  std::optional<Job> pop_wait(const std::atomic<bool>& stop) {
    std::unique_lock<std::mutex> hold(mutex_);
    ready_.wait(hold, [&] { return stop.load() || !queues_.empty(); });
    if (stop.load()) return std::nullopt;
    auto next = queues_.upper_bound(last_served_);
    if (next == queues_.end()) next = queues_.begin();
    last_served_ = next->first;
    Job job = std::move(next->second.front());
    next->second.pop_front();
    if (next->second.empty()) queues_.erase(next);
    return job;
  }

  /// Drops what `client` still has queued (it went away); returns how many jobs.
  std::size_t drop_client(std::uint64_t client) {
    const std::lock_guard<std::mutex> hold(mutex_);
    const auto found = queues_.find(client);
    if (found == queues_.end()) return 0;
    const std::size_t dropped = found->second.size();
    queues_.erase(found);
    return dropped;
  }

  std::size_t size() const {
    const std::lock_guard<std::mutex> hold(mutex_);
    std::size_t total = 0;
    for (const auto& [client, jobs] : queues_) total += jobs.size();
    return total;
  }

  /// Wakes every waiting pop_wait (after `stop` was set).
  void wake_all() { ready_.notify_all(); }

 private:
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::map<std::uint64_t, std::deque<Job>> queues_;  // only clients with jobs queued
  std::uint64_t last_served_ = 0;
};

}  // namespace rkt
