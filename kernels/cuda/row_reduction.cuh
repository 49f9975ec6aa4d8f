// row_reduction.cuh: the building blocks of the row-wise CUDA kernels (layernorm, rmsnorm,
// softmax, cross_entropy, sum_dim). Each of them runs one block per row of a [rows, cols] fp32
// matrix and loops over rows beyond the grid limit (row = blockIdx.x; row += gridDim.x). This
// header holds the single copy of what they share, so their reduction order cannot drift apart:
//   - warp_sum / warp_max: xor-butterfly shuffle reductions over a full warp;
//   - block_sum / block_max: warp reduction, one partial per warp through shared memory, then a
//     warp reduction of the partials; every thread gets the result;
//   - block_kahan_sum, block_row_max_sum_exp, block_row_abs_max, overflow_rescale: the per-row
//     reductions built on them;
//   - row_launch_config: the host-side grid (one block per row, at most kMaxRowBlocks) and block
//     size (from the row length) of those kernels.
// All of it is fp32 but block_sum_f64 (K double sums at once). Every function is inline (or a
// constexpr constant), so several .cu files can include the header without duplicate symbols.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace rkt::cuda_kernels {

// ---- Device: warp and block reductions ----------------------------------------------------------
// The block reductions need blockDim.x to be a multiple of 32 (at most 1024), every thread of the
// block to call them, and they may be called repeatedly (they synchronize before reusing their
// shared memory).

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Sum over the block; every thread gets the result.
__device__ inline float block_sum(float v) {
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

// Max over the block; every thread gets the result. `identity` is what the lanes beyond the
// block's warp count feed into the final warp reduction: -INFINITY in general; 0.0f also works
// when every value is >= 0 (the |x| maxima of the norm kernels).
__device__ inline float block_max(float v, float identity) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? partial[lane] : identity;
  return warp_max(v);
}

// ---- Device: per-row reductions ----------------------------------------------------------------
// `values` / `xr` point at the block's row; thread t handles elements t, t + blockDim.x, ...

// Sum of values[0, n): each thread Kahan-sums its strided slice in fp32, then block_sum adds the
// per-thread sums (their compensations are dropped). Every thread gets the result.
__device__ inline float block_kahan_sum(const float* __restrict__ values, std::int64_t n) {
  float sum = 0.0f;
  float comp = 0.0f;  // Kahan compensation
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float term = values[i] - comp;
    const float next = sum + term;
    comp = (next - sum) - term;
    sum = next;
  }
  return block_sum(sum);
}

struct RowMaxSumExp {
  float max;      // max_j x[j]
  float sum_exp;  // sum_j exp(x[j] - max)
};

// The two reductions of a numerically stable softmax / logsumexp over xr[0, cols): the block max,
// then the block sum of exp(x - max). Every thread gets both.
__device__ inline RowMaxSumExp block_row_max_sum_exp(const float* __restrict__ xr,
                                                     std::int64_t cols) {
  float m = -INFINITY;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
  m = block_max(m, -INFINITY);

  float s = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
  s = block_sum(s);
  return {m, s};
}

// max_j |xr[j]| over xr[0, cols), >= 0 (fmaxf skips NaNs); every thread gets it.
__device__ inline float block_row_abs_max(const float* __restrict__ xr, std::int64_t cols) {
  float amax = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) amax = fmaxf(amax, fabsf(xr[j]));
  return block_max(amax, 0.0f);
}

struct RowRescale {
  float scale;  // 2^-e: the power of two that brings a finite max |x| below 1 (1 if it already is)
  float eps;    // the caller's eps * 2^-2e
};

// For a row whose fp32 statistics overflowed (|x| ~ 1e19+): the power-of-two scale that brings
// every |x| below 1, and eps scaled to match, so that (x * scale) statistics with the scaled eps
// normalize exactly like x with eps. Block-uniform; every thread gets it.
__device__ inline RowRescale overflow_rescale(const float* __restrict__ xr, std::int64_t cols,
                                              float eps) {
  const float amax = block_row_abs_max(xr, cols);
  int e = 0;
  frexpf(amax, &e);
  e = max(e, 0);
  return {ldexpf(1.0f, -e), ldexpf(eps, -2 * e)};
}

// fp64 versions, for kernels that accumulate in double (rkb_layernorm, rkb_llama_rmsnorm).
__device__ __forceinline__ double warp_sum_f64(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Replaces each v[k] by its sum over the block (warp butterflies, one partial per warp through
// shared memory, then a butterfly over the partials): a fixed order, and every thread gets the
// same sums. Same contract as block_sum: blockDim.x a multiple of 32, every
// thread calls it, repeated calls are safe.
template <int K>
__device__ inline void block_sum_f64(double (&v)[K]) {
  __shared__ double partial[K][32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = static_cast<int>(blockDim.x >> 5);
#pragma unroll
  for (int k = 0; k < K; ++k) v[k] = warp_sum_f64(v[k]);
  __syncthreads();  // the previous call's readers are done with `partial`
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) partial[k][warp] = v[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) v[k] = warp_sum_f64(lane < warps ? partial[k][lane] : 0.0);
}

// ---- Host: launch configuration -----------------------------------------------------------------

// Grid limit of the row kernels; rows beyond it are taken by the kernels' grid-stride loop.
constexpr std::int64_t kMaxRowBlocks = 65535;

// Threads per block for rows of `cols` elements: 1024 from 16384 on, 256 from 256 on, else `cols`
// rounded up to a multiple of the warp size (as block_sum / block_max need).
inline int row_block_threads(std::int64_t cols) {
  if (cols >= 16384) return 1024;
  if (cols >= 256) return 256;
  return static_cast<int>((cols + 31) / 32 * 32);
}

struct RowLaunch {
  unsigned blocks;  // min(rows, kMaxRowBlocks)
  int threads;      // row_block_threads(cols)
};

// One block per row, up to kMaxRowBlocks blocks, for a [rows, cols] input with rows, cols > 0.
inline RowLaunch row_launch_config(std::int64_t rows, std::int64_t cols) {
  return {static_cast<unsigned>(std::min(rows, kMaxRowBlocks)), row_block_threads(cols)};
}

}  // namespace rkt::cuda_kernels
