// A user's CUDA kernel for the suite's softmax task (y = softmax(x) over the last dim of a
// B x N float32 tensor). One warp per row, 8 rows per 256-thread block: an online max and sum in
// one pass over the row (each lane keeps its own, merged with shuffles), then a second pass that
// writes exp(x - max) / sum. Any N works: lanes stride the row, so tails need no special case.
// Traffic: 2 reads and 1 write of x per element (the second read mostly hits L2 for rows of up
// to a few hundred KB). Written for clarity, not the last percent.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;

// Merges (max, sum) pairs where each sum is relative to its own max.
__device__ __forceinline__ void merge(float& max, float& sum, float other_max, float other_sum) {
  const float merged = fmaxf(max, other_max);
  if (merged == -INFINITY) return;  // both empty so far
  sum = sum * expf(max - merged) + other_sum * expf(other_max - merged);
  max = merged;
}

__global__ void __launch_bounds__(kWarp * kRowsPerBlock)
    softmax_rows(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows,
                 std::int64_t n) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const float* in = x + row * n;
  float* out = y + row * n;
  float max = -INFINITY, sum = 0.0f;
  for (std::int64_t j = threadIdx.x; j < n; j += kWarp) merge(max, sum, in[j], 1.0f);
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const float other_max = __shfl_xor_sync(0xffffffffu, max, offset);
    const float other_sum = __shfl_xor_sync(0xffffffffu, sum, offset);
    merge(max, sum, other_max, other_sum);
  }
  const float inverse_sum = 1.0f / sum;
  for (std::int64_t j = threadIdx.x; j < n; j += kWarp) out[j] = expf(in[j] - max) * inverse_sum;
}

void softmax_warp_per_row(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const std::int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  softmax_rows<<<blocks, dim3(kWarp, kRowsPerBlock), 0,
                 static_cast<cudaStream_t>(call.cuda_stream())>>>(
      x.data_as<const float>(), call.output(0).data_as<float>(), rows, n);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cuda_warp_per_row, softmax_warp_per_row)
    .describe("example project: one warp per row, online max and sum, second pass writes");
