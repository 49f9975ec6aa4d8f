// sum_dim: one block per row (grid-stride over rows); each thread Kahan-sums a strided slice of
// the row in fp32, then a warp-shuffle + shared-memory tree reduction combines the partial sums.
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_kahan_sum;
using rkt::cuda_kernels::row_launch_config;
using rkt::cuda_kernels::RowLaunch;

__global__ void sum_rows_kernel(const float* __restrict__ x, float* __restrict__ y,
                                std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    const float sum = block_kahan_sum(xr, cols);
    if (threadIdx.x == 0) y[row] = sum;
  }
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
  const RowLaunch launch = row_launch_config(rows, cols);
  sum_rows_kernel<<<launch.blocks, launch.threads, 0, stream>>>(
      x.data_as<const float>(), y.data_as<float>(), rows, cols);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(sum_dim, cuda_rowwise, sum_dim_cuda)
    .describe("One block per row: Kahan per-thread sums, warp-shuffle block reduction");
