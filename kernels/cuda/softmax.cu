// softmax: one block per row (grid-stride over rows), three passes over the row: block max
// (warp shuffle + shared memory), block sum of exp(x - max), then y = exp(x - max) / sum.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kMaxBlocks = 65535;

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Block-wide reductions; every thread gets the result. blockDim.x must be a multiple of 32.
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

__device__ float block_max(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : -INFINITY;
  return warp_max(v);
}

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    float m = -INFINITY;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_max(m);

    float s = 0.0f;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = block_sum(s);

    const float inv = 1.0f / s;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - m) * inv;
  }
}

int threads_for(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
}

void softmax_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const std::int64_t blocks = std::min(rows, kMaxBlocks);
  softmax_rows_kernel<<<static_cast<unsigned>(blocks), threads_for(cols), 0, stream>>>(
      x.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cuda_rowwise, softmax_cuda)
    .describe("One block per row: block max, block sum of exp(x - max), normalize");
