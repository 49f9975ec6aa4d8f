// The emulated block itself (emulated_block.h): the emulation is only worth its tests if a kernel
// that forgets a barrier or a cp.async wait reads wrong values there, as it may on a GPU, and a
// block whose threads can never meet is reported rather than waited on.
#define RKT_CUDA_EMULATION 1
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cuda_emulation.h"

namespace {

constexpr int kThreads = 64;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Each thread writes its value to shared memory, then reads its neighbour's: a rotation.
std::vector<float> rotate(bool synchronised) {
  std::vector<float> shared(kThreads, kNaN);
  std::vector<float> out(kThreads, kNaN);
  rkt_emulation::run_grid(
      EmulatedDim3{1, 1, 1}, kThreads, [&] { std::fill(shared.begin(), shared.end(), kNaN); },
      [&] {
        const int t = static_cast<int>(threadIdx.x);
        shared[t] = static_cast<float>(t);
        if (synchronised) __syncthreads();
        out[t] = shared[(t + 1) % kThreads];
      });
  return out;
}

TEST(EmulatedBlock, AThreadReadingWithoutTheBarrierSeesAValueNotYetWritten) {
  const std::vector<float> out = rotate(false);
  int unwritten = 0;
  for (float v : out) unwritten += std::isnan(v) ? 1 : 0;
  EXPECT_GT(unwritten, 0) << "every thread read its neighbour's value without a barrier";
}

TEST(EmulatedBlock, WithTheBarrierEveryThreadReadsItsNeighboursValue) {
  const std::vector<float> out = rotate(true);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], static_cast<float>((t + 1) % kThreads)) << t;
}

TEST(EmulatedBlock, ACopyReadBeforeItsWaitIsStaleAndAfterItIsRight) {
  std::vector<float> source(4 * kThreads);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<float>(i);
  std::vector<float> staged(source.size(), kNaN);
  std::vector<float> before(kThreads, 0.0f), after(kThreads, 0.0f);
  rkt_emulation::run_grid(
      EmulatedDim3{1, 1, 1}, kThreads, [] {},
      [&] {
        const int t = static_cast<int>(threadIdx.x);
        rkt_emulation::cp_async(&staged[4 * t], &source[4 * t], 16, 16);
        rkt_emulation::cp_async_commit();
        before[t] = staged[4 * t + 1];
        rkt_emulation::cp_async_wait(0);
        after[t] = staged[4 * t + 1];
      });
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(std::isnan(before[t])) << t;
    EXPECT_EQ(after[t], static_cast<float>(4 * t + 1)) << t;
  }
}

TEST(EmulatedBlock, ABarrierSomeThreadsSkipIsReportedAsADeadlock) {
  try {
    rkt_emulation::run_grid(
        EmulatedDim3{2, 1, 1}, kThreads, [] {},
        [] {
          if (threadIdx.x % 2 == 0) __syncthreads();
        });
    FAIL() << "the block was not reported";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("emulated block (0, 0): 32 of 64 threads wait"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(rkt_emulation::current_block, nullptr);
  // The next grid runs normally.
  EXPECT_EQ(rotate(true)[0], 1.0f);
}

TEST(EmulatedBlock, WhatAThreadThrowsReachesTheCaller) {
  EXPECT_THROW(rkt_emulation::run_grid(
                   EmulatedDim3{1, 1, 1}, kThreads, [] {},
                   [] {
                     __syncthreads();
                     if (threadIdx.x == 5) throw std::out_of_range("thread 5");
                     __syncthreads();
                   }),
               std::out_of_range);
}

TEST(EmulatedBlock, EachBlockSeesItsIndexAndEachThreadItsOwn) {
  std::vector<int> seen(3 * 2 * kThreads, 0);
  rkt_emulation::run_grid(
      EmulatedDim3{3, 2, 1}, kThreads, [] {},
      [&] {
        __syncthreads();  // indices survive a switch to the other threads and back
        ++seen[(blockIdx.y * 3 + blockIdx.x) * kThreads + threadIdx.x];
      });
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << i;
}

}  // namespace
