// emulated_block.h: the threads of one emulated CUDA block, run as fibers on the calling OS
// thread, with the barriers they meet at and the variables each keeps for itself. Included by
// cuda_emulation.h (after EmulatedDim3, threadIdx and blockIdx); not on its own.
//
// A thread runs until it finishes or waits at a barrier (__syncthreads, a warp's MMA or shuffle
// exchange); then the next one runs. Waiting is a switch of stacks. With one OS thread per
// emulated thread, each barrier was a futex and a trip through the kernel's scheduler for 128
// threads on two cores: rkt_low_precision_emulation_test spent 226 s in the kernel against 44 s
// of emulated work (2026-12-08, this machine).
//
// The order is fixed (thread 0, 1, ... in turn until each waits), so a run is repeatable; a kernel
// whose correctness hangs on the order of unsynchronised threads is wrong on a GPU as well.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rkt_emulation {

/// Stack of each emulated thread: a kernel keeps its register arrays there (a few KiB for a
/// flash attention thread's accumulators); pages never touched cost no memory.
inline constexpr std::size_t kEmulatedThreadStackBytes = 256 * 1024;

class EmulatedBlock;
/// The block whose threads are running now; null between blocks.
inline EmulatedBlock* running_block = nullptr;

// What resets a PerEmulatedThread variable as a block starts.
inline std::vector<std::function<void()>>& block_start_resets() {
  static std::vector<std::function<void()>> resets;
  return resets;
}

/// A variable with one value per thread of the block being run (the fibers share the OS thread,
/// so thread_local would be shared too); every value starts afresh with each block.
template <class T>
class PerEmulatedThread {
 public:
  PerEmulatedThread() {
    block_start_resets().push_back([this] { values_.clear(); });
  }
  PerEmulatedThread(const PerEmulatedThread&) = delete;
  PerEmulatedThread& operator=(const PerEmulatedThread&) = delete;

  /// The calling thread's value (by threadIdx.x).
  T& mine() {
    const std::size_t index = threadIdx.x;
    if (values_.size() <= index) values_.resize(index + 1);
    return values_[index];
  }

 private:
  std::vector<T> values_;
};

/// Runs the threads of one block at a time, each as a fiber, to the end or to a deadlock.
class EmulatedBlock {
 public:
  explicit EmulatedBlock(int threads)
      : threads_(threads), contexts_(threads), stacks_(threads), finished_(threads) {
    for (std::unique_ptr<char[]>& stack : stacks_) stack.reset(new char[kEmulatedThreadStackBytes]);
  }
  EmulatedBlock(const EmulatedBlock&) = delete;
  EmulatedBlock& operator=(const EmulatedBlock&) = delete;

  /// Runs body() as every thread of the block at `block_index`. Rethrows what a thread threw;
  /// throws std::runtime_error when the threads still running all wait at barriers that no
  /// thread will reach (a thread returned early, or a barrier inside a branch some skip).
  void run(EmulatedDim3 block_index, const std::function<void()>& body) {
    for (const std::function<void()>& reset : block_start_resets()) reset();
    body_ = &body;
    failure_ = nullptr;
    remaining_ = threads_;
    for (int t = 0; t < threads_; ++t) {
      finished_[t] = false;
      ucontext_t& context = contexts_[t];
      getcontext(&context);
      context.uc_stack.ss_sp = stacks_[t].get();
      context.uc_stack.ss_size = kEmulatedThreadStackBytes;
      context.uc_link = &scheduler_;
      makecontext(&context, &EmulatedBlock::thread_entry, 0);
    }
    running_block = this;
    while (remaining_ > 0 && failure_ == nullptr) {
      const long progress_before = progress_;
      for (int t = 0; t < threads_ && failure_ == nullptr; ++t) {
        if (finished_[t]) continue;
        current_ = t;
        threadIdx = EmulatedDim3{static_cast<unsigned>(t), 0, 0};
        blockIdx = block_index;
        swapcontext(&scheduler_, &contexts_[t]);
      }
      if (progress_ == progress_before && remaining_ > 0 && failure_ == nullptr) {
        running_block = nullptr;
        throw std::runtime_error(
            "emulated block (" + std::to_string(block_index.x) + ", " +
            std::to_string(block_index.y) + "): " + std::to_string(remaining_) + " of " +
            std::to_string(threads_) +
            " threads wait at barriers that the others never reach (a thread returned early, or "
            "a barrier sits in a branch that some threads skip)");
      }
    }
    running_block = nullptr;
    if (failure_ != nullptr) std::rethrow_exception(failure_);
  }

  /// Called by a waiting thread: lets the others run, and comes back on its next turn.
  void wait_for_the_others() { swapcontext(&contexts_[current_], &scheduler_); }
  /// A barrier opened: the threads are not deadlocked.
  void note_progress() { ++progress_; }

 private:
  static void thread_entry() {
    EmulatedBlock& block = *running_block;
    try {
      (*block.body_)();
    } catch (...) {
      block.failure_ = std::current_exception();
    }
    block.finished_[block.current_] = true;
    --block.remaining_;
    ++block.progress_;
  }  // Returns to the scheduler (uc_link).

  int threads_;
  std::vector<ucontext_t> contexts_;
  std::vector<std::unique_ptr<char[]>> stacks_;
  std::vector<bool> finished_;
  ucontext_t scheduler_{};
  const std::function<void()>* body_ = nullptr;
  std::exception_ptr failure_;
  int current_ = 0;
  int remaining_ = 0;
  long progress_ = 0;
};

/// A reusable barrier for a fixed number of the block's threads.
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void arrive_and_wait() {
    const long generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      if (running_block != nullptr) running_block->note_progress();
      return;
    }
    if (running_block == nullptr) {
      throw std::logic_error("an emulated barrier for " + std::to_string(count_) +
                             " threads was reached outside a running block");
    }
    while (generation_ == generation) running_block->wait_for_the_others();
  }

 private:
  int count_;
  int arrived_ = 0;
  long generation_ = 0;
};

}  // namespace rkt_emulation
