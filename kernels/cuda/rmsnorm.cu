// rmsnorm: one block per row (grid-stride over rows): block-reduce sum(x^2) with warp shuffles and
// shared memory, then y = x * rsqrt(sum / N + 1e-6) * weight. If sum(x^2) overflows fp32
// (|x| ~ 1e19+), the row is redone on x scaled by a power of two.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kMaxBlocks = 65535;
constexpr float kEps = 1e-6f;

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
      float amax = 0.0f;
      for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        amax = fmaxf(amax, fabsf(xr[j]));
      amax = block_max(amax);
      int e = 0;
      frexpf(amax, &e);
      e = max(e, 0);
      scale = ldexpf(1.0f, -e);
      eps = ldexpf(kEps, -2 * e);
      sq = row_sum_squares(xr, cols, scale);
    }
    const float inv_rms = 1.0f / sqrtf(sq * inv_cols + eps);

    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = xr[j] * scale * inv_rms * w[j];
  }
}

int threads_for(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
}

void rmsnorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const std::int64_t blocks = std::min(rows, kMaxBlocks);
  rmsnorm_rows_kernel<<<static_cast<unsigned>(blocks), threads_for(cols), 0, stream>>>(
      x.data_as<const float>(), weight.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cuda_rowwise, rmsnorm_cuda)
    .describe("One block per row: block-reduced sum of squares, then x * rsqrt(mean + eps) * w");
