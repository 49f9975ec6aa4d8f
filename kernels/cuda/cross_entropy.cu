// cross_entropy: one block per row writes (max + log(sum exp(x - max))) - x[target] into a
// temporary per-row buffer (cudaMallocAsync on the call's stream); a single block then reduces it
// in a fixed order (Kahan per-thread sums + tree) and writes the mean. Deterministic, no atomics.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kMaxBlocks = 65535;
constexpr int kReduceThreads = 1024;

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

__global__ void row_loss_kernel(const float* __restrict__ logits,
                                const std::int64_t* __restrict__ target,
                                float* __restrict__ row_loss, std::int64_t rows,
                                std::int64_t classes) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = logits + row * classes;

    float m = -INFINITY;
    for (std::int64_t j = threadIdx.x; j < classes; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_max(m);

    float s = 0.0f;
    for (std::int64_t j = threadIdx.x; j < classes; j += blockDim.x) s += expf(xr[j] - m);
    s = block_sum(s);

    if (threadIdx.x == 0) {
      const std::int64_t t = target[row];
      // An out-of-range target is a caller error: report NaN instead of reading out of bounds.
      row_loss[row] = (t >= 0 && t < classes) ? (m - xr[t]) + logf(s) : NAN;
    }
  }
}

// One block: fixed-order reduction of the per-row losses, then the mean.
__global__ void mean_kernel(const float* __restrict__ row_loss, float* __restrict__ out,
                            std::int64_t rows) {
  float sum = 0.0f;
  float comp = 0.0f;  // Kahan compensation
  for (std::int64_t i = threadIdx.x; i < rows; i += blockDim.x) {
    const float term = row_loss[i] - comp;
    const float next = sum + term;
    comp = (next - sum) - term;
    sum = next;
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) out[0] = sum / static_cast<float>(rows);
}

int threads_for(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
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
  const std::int64_t blocks = std::min(rows, kMaxBlocks);
  row_loss_kernel<<<static_cast<unsigned>(blocks), threads_for(classes), 0, stream>>>(
      logits.data_as<const float>(), target.data_as<const std::int64_t>(), row_loss, rows,
      classes);
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
