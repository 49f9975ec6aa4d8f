// softmax: one block per row (grid-stride over rows), three passes over the row: block max
// (warp shuffle + shared memory), block sum of exp(x - max), then y = exp(x - max) / sum.
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_row_max_sum_exp;
using rkt::cuda_kernels::row_launch_config;
using rkt::cuda_kernels::RowLaunch;
using rkt::cuda_kernels::RowMaxSumExp;

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;

    const RowMaxSumExp r = block_row_max_sum_exp(xr, cols);
    const float inv = 1.0f / r.sum_exp;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - r.max) * inv;
  }
}

void softmax_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const RowLaunch launch = row_launch_config(rows, cols);
  softmax_rows_kernel<<<launch.blocks, launch.threads, 0, stream>>>(
      x.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cuda_rowwise, softmax_cuda)
    .describe("One block per row: block max, block sum of exp(x - max), normalize");
