// layernorm: y = (x - mean) / sqrt(var + 1e-5) * weight + bias over the last dim of [rows, n].
//
// Design: one block per row (grid-stride over rows), the row held in registers (row_cache.cuh;
// 16-byte loads when aligned and n % 4 == 0). Two-pass statistics over the registers: block-sum
// the mean, then block-sum (x - mean)^2 for the biased variance (accurate at any offset, and no
// second read of x). If the statistics overflow fp32 (|x| ~ 1e19+), the row is rescaled in
// registers by a power of two and the statistics redone (exactly equivalent, see below).
// Traffic: x read once, y written once, weight and bias read per row from L1/L2: 8 bytes per
// element of x (268 MB at 4096 x 8192, 0.064 ms at 4.2 TB/s). Expected: about 85% of the copy
// bandwidth (run 8's re-reading version: 37%).
// Rows longer than kMaxCachedRow (32768, the task's largest n) use the streaming kernel.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 30-64 per variant (<4, 32>, the default shape's:
// 64), no spills except <1, 32> (scalar rows longer than 8192 that are not multiples of 4:
// 280 bytes, property cases only); streaming kernel 28.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "row_reduction.cuh"

namespace {

using namespace rkt::cuda_kernels;

constexpr float kEps = 1e-5f;

// Mean and biased variance of the cached row (padding excluded); every thread gets them.
template <int kWidth, int kItems>
__device__ __forceinline__ void cached_row_stats(const float (&v)[kItems], int n, float& mean,
                                                 float& var) {
  const float inv_n = 1.0f / static_cast<float>(n);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) s += v[j];  // padding holds 0
  mean = block_sum(s) * inv_n;
  float sq = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const float d = row_cache_valid<kWidth>(j, n) ? v[j] - mean : 0.0f;
    sq = fmaf(d, d, sq);
  }
  var = block_sum(sq) * inv_n;
}

template <int kWidth, int kItems>
__global__ void __launch_bounds__(row_cache_max_threads<kItems>())
    layernorm_cached_kernel(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ b, float* __restrict__ y, std::int64_t rows,
                            int n) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float v[kItems];
    load_row_cache<kWidth, kItems>(x + row * n, n, v, 0.0f);
    float mean, var;
    cached_row_stats<kWidth>(v, n, mean, var);
    float eps = kEps;
    if (!isfinite(mean) || !isfinite(var)) {  // block-uniform: overflow for huge |x|
      // Redo on x' = x * 2^-e with max|x'| < 1: (x - m) / sqrt(v + eps) equals
      // (x' - m') / sqrt(v' + eps * 2^-2e) exactly (powers of two), and nothing overflows.
      float amax = 0.0f;
#pragma unroll
      for (int j = 0; j < kItems; ++j) amax = fmaxf(amax, fabsf(v[j]));
      amax = block_max(amax, 0.0f);
      int e = 0;
      frexpf(amax, &e);
      e = max(e, 0);
      const float scale = ldexpf(1.0f, -e);
#pragma unroll
      for (int j = 0; j < kItems; ++j) v[j] *= scale;
      eps = ldexpf(kEps, -2 * e);
      cached_row_stats<kWidth>(v, n, mean, var);
    }
    const float inv_std = 1.0f / sqrtf(var + eps);
    // Per vector slot: weight and bias loaded next to their use (whole arrays of them would
    // not fit the registers of the 32-item variant).
#pragma unroll
    for (int i = 0; i < kItems / kWidth; ++i) {
      const int e = row_slot_start<kWidth>(i);
      if (e < n) {
        float wv[kWidth];
        float bv[kWidth];
        load_vector<kWidth>(w, e, wv);
        load_vector<kWidth>(b, e, bv);
#pragma unroll
        for (int c = 0; c < kWidth; ++c) {
          v[i * kWidth + c] = fmaf((v[i * kWidth + c] - mean) * inv_std, wv[c], bv[c]);
        }
      }
    }
    store_row_cache<kWidth, kItems>(y + row * n, n, v);
  }
}

// Rows beyond the register cache: two-pass statistics re-reading the row, with the same
// overflow rescale.
__device__ void streaming_row_stats(const float* __restrict__ xr, std::int64_t cols, float inv_cols,
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

__global__ void layernorm_streaming_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                           const float* __restrict__ b, float* __restrict__ y,
                                           std::int64_t rows, std::int64_t cols) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float mean, var;
    streaming_row_stats(xr, cols, inv_cols, 1.0f, mean, var);
    float scale = 1.0f;
    float eps = kEps;
    if (!isfinite(mean) || !isfinite(var)) {
      const RowRescale rescale = overflow_rescale(xr, cols, kEps);
      scale = rescale.scale;
      eps = rescale.eps;
      streaming_row_stats(xr, cols, inv_cols, scale, mean, var);
    }
    const float inv_std = 1.0f / sqrtf(var + eps);
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = fmaf((xr[j] * scale - mean) * inv_std, w[j], b[j]);
  }
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
  const float* xp = x.data_as<const float>();
  const float* wp = weight.data_as<const float>();
  const float* bp = bias.data_as<const float>();
  float* yp = y.data_as<float>();
  const unsigned blocks = static_cast<unsigned>(std::min(rows, kMaxRowBlocks));
  if (cols > kMaxCachedRow) {
    layernorm_streaming_kernel<<<blocks, row_block_threads(cols), 0, stream>>>(xp, wp, bp, yp, rows,
                                                                               cols);
  } else {
    const bool aligned =
        is_aligned16(xp) && is_aligned16(wp) && is_aligned16(bp) && is_aligned16(yp);
    const RowCacheShape shape = choose_row_cache(cols, aligned);
    dispatch_row_cache(shape, [&](auto width, auto items) {
      layernorm_cached_kernel<decltype(width)::value, decltype(items)::value>
          <<<blocks, shape.threads, 0, stream>>>(xp, wp, bp, yp, rows, static_cast<int>(cols));
    });
  }
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(layernorm, cuda_rowwise, layernorm_cuda)
    .describe(
        "One block per row, row cached in registers (float4 loads): two-pass mean and "
        "variance over registers, affine normalize; one read, one write");
