#include <cuda_runtime_api.h>

#include <algorithm>

#include "framework/inputs/counter_random_kernel.h"
#include "framework/inputs/counter_word.h"

namespace rkt {
namespace {

using counter_word_detail::kTwoPi;
using counter_word_detail::kTwoToMinus24;
using counter_word_detail::unit_of;
using counter_word_detail::word_of;

constexpr int kDrawThreads = 256;
constexpr std::int64_t kDrawMaxBlocks = 8192;  // a grid-stride loop past this

// Every float64 step rounded on its own (__dmul_rn, __dadd_rn: nvcc never fuses them into an
// fma), in the tensor path's order, so the bits are that path's.
__global__ void uniform_kernel(float* out, std::uint64_t first, std::int64_t count,
                               std::uint64_t key, double width, double low) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double unit = unit_of(word_of(key, first + static_cast<std::uint64_t>(i)));
    out[i] = __double2float_rn(__dadd_rn(__dmul_rn(unit, width), low));
  }
}

__global__ void normal_kernel(float* out, std::uint64_t first, std::int64_t count,
                              std::uint64_t radius_key, std::uint64_t angle_key, double stddev,
                              double mean) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint64_t index = first + static_cast<std::uint64_t>(i);
    const double u1 = __dadd_rn(unit_of(word_of(radius_key, index)), kTwoToMinus24);
    const double u2 = unit_of(word_of(angle_key, index));
    const double radius = __dsqrt_rn(__dmul_rn(log(u1), -2.0));
    const double angle = cos(__dmul_rn(u2, kTwoPi));
    const double z = __dmul_rn(__dmul_rn(radius, angle), stddev);
    out[i] = __double2float_rn(__dadd_rn(z, mean));
  }
}

__global__ void bernoulli_kernel(float* out, std::uint64_t first, std::int64_t count,
                                 std::uint64_t key, std::int64_t threshold) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const std::uint32_t word = word_of(key, first + static_cast<std::uint64_t>(i));
    out[i] = static_cast<std::int64_t>(word) < threshold ? 1.0f : 0.0f;
  }
}

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>(std::max<std::int64_t>(
      1, std::min(kDrawMaxBlocks, (count + kDrawThreads - 1) / kDrawThreads)));
}

}  // namespace

int enqueue_counter_uniform(float* out, std::uint64_t first, std::int64_t count, std::uint64_t key,
                            double width, double low, void* cuda_stream) {
  if (count <= 0) return 0;
  uniform_kernel<<<blocks_for(count), kDrawThreads, 0, static_cast<cudaStream_t>(cuda_stream)>>>(
      out, first, count, key, width, low);
  return static_cast<int>(cudaGetLastError());
}

int enqueue_counter_normal(float* out, std::uint64_t first, std::int64_t count,
                           std::uint64_t radius_key, std::uint64_t angle_key, double stddev,
                           double mean, void* cuda_stream) {
  if (count <= 0) return 0;
  normal_kernel<<<blocks_for(count), kDrawThreads, 0, static_cast<cudaStream_t>(cuda_stream)>>>(
      out, first, count, radius_key, angle_key, stddev, mean);
  return static_cast<int>(cudaGetLastError());
}

int enqueue_counter_bernoulli(float* out, std::uint64_t first, std::int64_t count,
                              std::uint64_t key, std::int64_t threshold, void* cuda_stream) {
  if (count <= 0) return 0;
  bernoulli_kernel<<<blocks_for(count), kDrawThreads, 0, static_cast<cudaStream_t>(cuda_stream)>>>(
      out, first, count, key, threshold);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace rkt
