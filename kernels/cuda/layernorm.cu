// layernorm: one block per row (grid-stride over rows), two-pass statistics: block-reduce the
// mean, then block-reduce sum((x - mean)^2) for the biased variance; then normalize, scale, shift.
// If the statistics overflow fp32 (|x| ~ 1e19+), the row is redone on x scaled by a power of two.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kMaxBlocks = 65535;
constexpr float kEps = 1e-5f;

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sum over the block; every thread gets the result. blockDim.x must be a multiple of 32.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_sum(v);
  __syncthreads();  // the previous call's readers are done with `partial`
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : 0.0f;
  return warp_sum(v);
}

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float block_max(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : 0.0f;
  return warp_max(v);
}

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
      float amax = 0.0f;
      for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        amax = fmaxf(amax, fabsf(xr[j]));
      amax = block_max(amax);
      int e = 0;
      frexpf(amax, &e);
      e = max(e, 0);
      scale = ldexpf(1.0f, -e);
      eps = ldexpf(kEps, -2 * e);
      row_stats(xr, cols, inv_cols, scale, mean, var);
    }
    const float inv_std = 1.0f / sqrtf(var + eps);

    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = fmaf((xr[j] * scale - mean) * inv_std, w[j], b[j]);
  }
}

int threads_for(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
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
  const std::int64_t blocks = std::min(rows, kMaxBlocks);
  layernorm_rows_kernel<<<static_cast<unsigned>(blocks), threads_for(cols), 0, stream>>>(
      x.data_as<const float>(), weight.data_as<const float>(), bias.data_as<const float>(),
      y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(layernorm, cuda_rowwise, layernorm_cuda)
    .describe("One block per row: two-pass mean/variance block reductions, then affine normalize");
