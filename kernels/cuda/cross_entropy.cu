// cross_entropy (and rkb_mnist_cross_entropy, the same computation): loss = mean over rows b of
// logsumexp(logits[b, :]) - logits[b, target[b]], a rank-0 tensor.
//
// Design: two kernels on the call's stream, no atomics (deterministic).
//   1. row_loss_kernel: a group of kGroup threads per row (kGroup = 256, one block, when the row
//      has at least 1024 classes; a warp, 8 rows per block, below that). One pass over the row
//      with an online logsumexp: each thread loads kUnroll vectors (16-byte float4 when the
//      logits are aligned and C % 4 == 0, else scalars) at once, folds them into its running
//      (max, sum of exp(x - max)), and the group combines the pairs in a fixed butterfly order.
//      The row's loss goes to a scratch buffer (cudaMallocAsync on the stream). An out-of-range
//      target gives NaN instead of an out-of-bounds read.
//   2. mean_kernel: one block adds the per-row losses in a fixed order (Kahan per thread + tree).
// Traffic: the logits read once (4 bytes per element: 524 MB at 4096 x 32000, 0.124 ms at
// 4.2 TB/s), plus 12 bytes per row. Expected: about 85% of the copy bandwidth (run 8's version
// read each row twice: 29%). Rows may be up to 65536 classes (the task's domain); nothing is
// cached, so any C works.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): row kernels 31-39, mean kernel 16, no spills.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_kahan_sum;
using rkt::cuda_kernels::is_aligned16;

constexpr int kBlockThreads = 256;
constexpr int kUnroll = 4;            // [vectors loaded per thread before they are used]
constexpr int kReduceThreads = 1024;  // threads of the mean kernel
constexpr std::int64_t kBlockRowMinClasses = 1024;  // rows this long get a whole block
constexpr std::int64_t kMaxGridBlocks = 65535;

// A running logsumexp: max m and s = sum exp(x - m). m = -inf means "no finite element yet".
struct LogSumExp {
  float m;
  float s;
};

__device__ __forceinline__ LogSumExp combine(LogSumExp a, LogSumExp b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// Combines the (m, s) pairs of the kGroup threads of a group; every thread of the group gets the
// result. kGroup == 32: a warp butterfly. kGroup == blockDim.x: warp butterflies, then the
// warps' pairs through shared memory in warp order.
template <int kGroup>
__device__ __forceinline__ LogSumExp group_combine(LogSumExp v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const LogSumExp other{__shfl_xor_sync(0xffffffffu, v.m, offset),
                          __shfl_xor_sync(0xffffffffu, v.s, offset)};
    v = combine(v, other);
  }
  if constexpr (kGroup > 32) {
    __shared__ LogSumExp partial[kGroup / 32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    __syncthreads();  // the previous row's readers are done with `partial`
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = partial[0];
#pragma unroll
    for (int i = 1; i < kGroup / 32; ++i) v = combine(v, partial[i]);
  }
  return v;
}

// One row per group of kGroup threads; kWidth floats per load.
template <int kGroup, int kWidth>
__global__ void __launch_bounds__(kBlockThreads)
    row_loss_kernel(const float* __restrict__ logits, const std::int64_t* __restrict__ target,
                    float* __restrict__ row_loss, std::int64_t rows, std::int64_t classes) {
  constexpr int kGroupsPerBlock = kBlockThreads / kGroup;
  const int group = static_cast<int>(threadIdx.x) / kGroup;
  const int t = static_cast<int>(threadIdx.x) % kGroup;
  // Every thread of a block runs the same number of iterations (the row loop's bound is
  // block-uniform), so the block-wide barriers of group_combine<256> are always reached.
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kGroupsPerBlock; base < rows;
       base += static_cast<std::int64_t>(gridDim.x) * kGroupsPerBlock) {
    const std::int64_t row = base + group;
    LogSumExp acc{-INFINITY, 0.0f};
    if (row < rows) {
      const float* xr = logits + row * classes;
      constexpr std::int64_t kStep = std::int64_t{kGroup} * kWidth;
      for (std::int64_t e0 = std::int64_t{t} * kWidth; e0 < classes; e0 += kStep * kUnroll) {
        float v[kUnroll * kWidth];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::int64_t e = e0 + u * kStep;
          if constexpr (kWidth == 4) {
            if (e < classes) {  // classes % 4 == 0: the whole vector is inside
              const float4 q = __ldg(reinterpret_cast<const float4*>(xr + e));
              v[4 * u] = q.x;
              v[4 * u + 1] = q.y;
              v[4 * u + 2] = q.z;
              v[4 * u + 3] = q.w;
            } else {
              v[4 * u] = v[4 * u + 1] = v[4 * u + 2] = v[4 * u + 3] = -INFINITY;
            }
          } else {
            v[u] = e < classes ? __ldg(xr + e) : -INFINITY;
          }
        }
        float chunk_max = -INFINITY;
#pragma unroll
        for (int j = 0; j < kUnroll * kWidth; ++j) chunk_max = fmaxf(chunk_max, v[j]);
        const float m = fmaxf(acc.m, chunk_max);
        if (m != -INFINITY) {
          float s = acc.s * expf(acc.m - m);  // acc.m = -inf: exp(-inf) = 0
#pragma unroll
          for (int j = 0; j < kUnroll * kWidth; ++j) s += expf(v[j] - m);
          acc = {m, s};
        }
      }
    }
    acc = group_combine<kGroup>(acc);
    if (row < rows && t == 0) {
      const std::int64_t tgt = target[row];
      // An out-of-range target is a caller error: report NaN instead of reading out of bounds.
      row_loss[row] =
          (tgt >= 0 && tgt < classes) ? (acc.m - logits[row * classes + tgt]) + logf(acc.s) : NAN;
    }
  }
}

// One block: fixed-order reduction of the per-row losses, then the mean.
__global__ void mean_kernel(const float* __restrict__ row_loss, float* __restrict__ out,
                            std::int64_t rows) {
  const float sum = block_kahan_sum(row_loss, rows);
  if (threadIdx.x == 0) out[0] = sum / static_cast<float>(rows);
}

template <int kGroup, int kWidth>
void launch_row_loss(const float* logits, const std::int64_t* target, float* row_loss,
                     std::int64_t rows, std::int64_t classes, cudaStream_t stream) {
  constexpr int kGroupsPerBlock = kBlockThreads / kGroup;
  const std::int64_t blocks =
      std::min((rows + kGroupsPerBlock - 1) / kGroupsPerBlock, kMaxGridBlocks);
  row_loss_kernel<kGroup, kWidth><<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(
      logits, target, row_loss, rows, classes);
}

void cross_entropy_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& logits = call.input(0);
  const rkt::TensorView& target = call.input(1);
  const rkt::TensorView& loss = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = logits.size(0);
  const std::int64_t classes = logits.size(1);
  if (rows == 0 || classes == 0) return;
  const float* lp = logits.data_as<const float>();
  const std::int64_t* tp = target.data_as<const std::int64_t>();

  float* row_loss = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&row_loss),
                                 static_cast<std::size_t>(rows) * sizeof(float), stream));
  const bool vector = is_aligned16(lp) && classes % 4 == 0;
  if (classes >= kBlockRowMinClasses) {
    if (vector) {
      launch_row_loss<kBlockThreads, 4>(lp, tp, row_loss, rows, classes, stream);
    } else {
      launch_row_loss<kBlockThreads, 1>(lp, tp, row_loss, rows, classes, stream);
    }
  } else if (vector) {
    launch_row_loss<32, 4>(lp, tp, row_loss, rows, classes, stream);
  } else {
    launch_row_loss<32, 1>(lp, tp, row_loss, rows, classes, stream);
  }
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
    .describe(
        "One pass per row (online logsumexp, float4 loads; block or warp per row) into a "
        "temp buffer, single-block fixed-order mean");
ROBUST_KERNEL_TEST(rkb_mnist_cross_entropy, cuda, cross_entropy_cuda)
    .describe(
        "Same kernel as cross_entropy/cuda_rowwise: warp per row for C < 1024, online "
        "logsumexp, fixed-order mean");
