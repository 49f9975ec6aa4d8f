// Peak device memory sees allocations outside LibTorch's caching allocator (cudaMallocAsync
// scratch, as rkb_layernorm/cuda and cross_entropy/cuda_rowwise use).
#include <gtest/gtest.h>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "framework/runtime/device_memory.h"
#include "framework/runtime/device_support.h"

namespace rkt {
namespace {

TEST(PeakMemory, IsNotMeasuredOnTheCpu) {
  EXPECT_EQ(peak_bytes_added(Device::cpu, [] {}), -1);
}

TEST(PeakMemory, SeesScratchFromCudaMallocAsync) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
#if RKT_WITH_CUDA
  constexpr std::size_t kScratch = 64u << 20;  // [bytes]
  const double peak = peak_bytes_added(Device::cuda, [] {
    void* scratch = nullptr;
    ASSERT_EQ(cudaMallocAsync(&scratch, kScratch, nullptr), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(scratch, nullptr), cudaSuccess);
  });
  EXPECT_GE(peak, static_cast<double>(kScratch));
  EXPECT_LT(peak, 2.0 * kScratch);
#endif
}

}  // namespace
}  // namespace rkt
