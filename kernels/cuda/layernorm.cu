// layernorm: one block per row (grid-stride over rows), two-pass statistics: block-reduce the
// mean, then block-reduce sum((x - mean)^2) for the biased variance; then normalize, scale, shift.
// If the statistics overflow fp32 (|x| ~ 1e19+), the row is redone on x scaled by a power of two.
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

constexpr float kEps = 1e-5f;

// Two-pass mean and biased variance of x[j] * scale over the row (scale a power of two); every
// thread gets them.
__device__ void row_stats(const float* __restrict__ xr, std::int64_t cols, float inv_cols,
                          float scale, float& mean, float& var) {
  float s = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += xr[j] * scale;
  mean = block_sum(s) * inv_cols;
  float sq = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float d = xr[j] * scale - mean;
    sq = fmaf(d, d, sq);
  }
  var = block_sum(sq) * inv_cols;
}

__global__ void layernorm_rows_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ b, float* __restrict__ y,
                                      std::int64_t rows, std::int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float mean, var;
    row_stats(xr, cols, inv_cols, 1.0f, mean, var);
    float scale = 1.0f;
    float eps = kEps;
    if (!isfinite(mean) || !isfinite(var)) {  // block-uniform: overflow for huge |x|
      // Redo on x' = x * 2^-e with max|x'| < 1: (x - m) / sqrt(v + eps) equals
      // (x' - m') / sqrt(v' + eps * 2^-2e) exactly, and nothing overflows.
      const RowRescale rescale = overflow_rescale(xr, cols, kEps);
      scale = rescale.scale;
      eps = rescale.eps;
      row_stats(xr, cols, inv_cols, scale, mean, var);
    }
    const float inv_std = 1.0f / sqrtf(var + eps);

    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = fmaf((xr[j] * scale - mean) * inv_std, w[j], b[j]);
  }
}

void layernorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& bias = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const RowLaunch launch = row_launch_config(rows, cols);
  layernorm_rows_kernel<<<launch.blocks, launch.threads, 0, stream>>>(
      x.data_as<const float>(), weight.data_as<const float>(), bias.data_as<const float>(),
      y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(layernorm, cuda_rowwise, layernorm_cuda)
    .describe("One block per row: two-pass mean/variance block reductions, then affine normalize");
