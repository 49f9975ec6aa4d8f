// cross_entropy: one block per row writes (max + log(sum exp(x - max))) - x[target] into a
// temporary per-row buffer (cudaMallocAsync on the call's stream); a single block then reduces it
// in a fixed order (Kahan per-thread sums + tree) and writes the mean. Deterministic, no atomics.
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_kahan_sum;
using rkt::cuda_kernels::block_row_max_sum_exp;
using rkt::cuda_kernels::row_launch_config;
using rkt::cuda_kernels::RowLaunch;
using rkt::cuda_kernels::RowMaxSumExp;

constexpr int kReduceThreads = 1024;

__global__ void row_loss_kernel(const float* __restrict__ logits,
                                const std::int64_t* __restrict__ target,
                                float* __restrict__ row_loss, std::int64_t rows,
                                std::int64_t classes) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = logits + row * classes;

    const RowMaxSumExp r = block_row_max_sum_exp(xr, classes);

    if (threadIdx.x == 0) {
      const std::int64_t t = target[row];
      // An out-of-range target is a caller error: report NaN instead of reading out of bounds.
      row_loss[row] = (t >= 0 && t < classes) ? (r.max - xr[t]) + logf(r.sum_exp) : NAN;
    }
  }
}

// One block: fixed-order reduction of the per-row losses, then the mean.
__global__ void mean_kernel(const float* __restrict__ row_loss, float* __restrict__ out,
                            std::int64_t rows) {
  const float sum = block_kahan_sum(row_loss, rows);
  if (threadIdx.x == 0) out[0] = sum / static_cast<float>(rows);
}

void cross_entropy_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& logits = call.input(0);
  const rkt::TensorView& target = call.input(1);
  const rkt::TensorView& loss = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = logits.size(0);
  const std::int64_t classes = logits.size(1);
  if (rows == 0 || classes == 0) return;

  float* row_loss = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&row_loss),
                                 static_cast<std::size_t>(rows) * sizeof(float), stream));
  const RowLaunch launch = row_launch_config(rows, classes);
  row_loss_kernel<<<launch.blocks, launch.threads, 0, stream>>>(
      logits.data_as<const float>(), target.data_as<const std::int64_t>(), row_loss, rows, classes);
  cudaError_t launch_status = cudaGetLastError();
  if (launch_status == cudaSuccess) {
    mean_kernel<<<1, kReduceThreads, 0, stream>>>(row_loss, loss.data_as<float>(), rows);
    launch_status = cudaGetLastError();
  }
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = cudaFreeAsync(row_loss, stream);
  RKT_CUDA_CHECK(launch_status);
  RKT_CUDA_CHECK(free_status);
}

}  // namespace

ROBUST_KERNEL_TEST(cross_entropy, cuda_rowwise, cross_entropy_cuda)
    .describe("Per-row block logsumexp - x[target] into a temp buffer, single-block mean reduce");
