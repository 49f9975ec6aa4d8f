// rmsnorm: one block per row (grid-stride over rows): block-reduce sum(x^2) with warp shuffles and
// shared memory, then y = x * rsqrt(sum / N + 1e-6) * weight. If sum(x^2) overflows fp32
// (|x| ~ 1e19+), the row is redone on x scaled by a power of two.
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_sum;
using rkt::cuda_kernels::overflow_rescale;
using rkt::cuda_kernels::row_launch_config;
using rkt::cuda_kernels::RowLaunch;
using rkt::cuda_kernels::RowRescale;

constexpr float kEps = 1e-6f;

// sum((x[j] * scale)^2) over the row (scale a power of two); every thread gets it.
__device__ float row_sum_squares(const float* __restrict__ xr, std::int64_t cols, float scale) {
  float sq = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float v = xr[j] * scale;
    sq = fmaf(v, v, sq);
  }
  return block_sum(sq);
}

__global__ void rmsnorm_rows_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    float* __restrict__ y, std::int64_t rows, std::int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float sq = row_sum_squares(xr, cols, 1.0f);
    float scale = 1.0f;
    float eps = kEps;
    if (!isfinite(sq)) {  // block-uniform: x^2 overflowed for huge |x|
      // Redo on x' = x * 2^-e with max|x'| < 1: x * rsqrt(ms + eps) equals
      // x' * rsqrt(ms' + eps * 2^-2e) exactly, and nothing overflows.
      const RowRescale rescale = overflow_rescale(xr, cols, kEps);
      scale = rescale.scale;
      eps = rescale.eps;
      sq = row_sum_squares(xr, cols, scale);
    }
    const float inv_rms = 1.0f / sqrtf(sq * inv_cols + eps);

    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = xr[j] * scale * inv_rms * w[j];
  }
}

void rmsnorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const RowLaunch launch = row_launch_config(rows, cols);
  rmsnorm_rows_kernel<<<launch.blocks, launch.threads, 0, stream>>>(
      x.data_as<const float>(), weight.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cuda_rowwise, rmsnorm_cuda)
    .describe("One block per row: block-reduced sum of squares, then x * rsqrt(mean + eps) * w");
