// sum_dim: one block per row (grid-stride over rows); each thread Kahan-sums a strided slice of
// the row in fp32, then a warp-shuffle + shared-memory tree reduction combines the partial sums.
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

// Sum over the block; every thread gets the result. blockDim.x must be a multiple of 32.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int num_warps = blockDim.x >> 5;
  v = warp_sum(v);
  __syncthreads();  // the previous call's readers are done with `partial`
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < num_warps ? partial[lane] : 0.0f;
  return warp_sum(v);
}

__global__ void sum_rows_kernel(const float* __restrict__ x, float* __restrict__ y,
                                std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float sum = 0.0f;
    float comp = 0.0f;  // Kahan compensation
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      const float term = xr[j] - comp;
      const float next = sum + term;
      comp = (next - sum) - term;
      sum = next;
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0) y[row] = sum;
  }
}

int threads_for(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
}

void sum_dim_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0) return;
  if (cols == 0) {
    RKT_CUDA_CHECK(cudaMemsetAsync(y.data, 0, rows * sizeof(float), stream));
    return;
  }
  const int threads = threads_for(cols);
  const std::int64_t blocks = std::min(rows, kMaxBlocks);
  sum_rows_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      x.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(sum_dim, cuda_rowwise, sum_dim_cuda)
    .describe("One block per row: Kahan per-thread sums, warp-shuffle block reduction");
