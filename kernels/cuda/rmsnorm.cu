// rmsnorm (eps 1e-6) and rkb_llama_rmsnorm (eps 1e-5): y = x / sqrt(mean(x^2) + eps) * weight
// over the last dim, rows = every other dim (rkb_llama_rmsnorm: x [B, T, H] is B*T rows of H).
//
// Design: one block per row (grid-stride over rows), the row held in registers (row_cache.cuh;
// 16-byte loads when aligned and n % 4 == 0): block-sum x^2 over the registers, then write
// x * inv_rms * w from them. If sum(x^2) overflows fp32 (|x| ~ 1e19+), the row is rescaled in
// registers by a power of two and the sum redone (exactly equivalent).
// Traffic: x read once, y written once (weight from L1/L2): 8 bytes per element (268 MB at
// 4096 x 8192, 0.064 ms at 4.2 TB/s; 537 MB for rkb_llama_rmsnorm's 16 x 1024 x 4096, 0.127 ms).
// Expected: about 85% of the copy bandwidth (run 8: 42% for rmsnorm; 62% for rkb_llama_rmsnorm's
// fp64 version, which this fp32 kernel replaces: the forward has no cancellation that needs fp64,
// and the overflow rescale covers huge x).
// Rows longer than kMaxCachedRow (32768, the task's largest n) use the streaming kernel.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 28-64 per variant (<4, 32> for rmsnorm's default:
// 64; <4, 16> for rkb_llama_rmsnorm's H = 4096: 60), no spills except <1, 32> (scalar rows
// longer than 8192 that are not multiples of 4: 112 bytes, property cases only).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "row_reduction.cuh"

namespace {

using namespace rkt::cuda_kernels;

constexpr float kRmsNormEps = 1e-6f;       // the rmsnorm task's eps
constexpr float kLlamaRmsNormEps = 1e-5f;  // rkb_llama_rmsnorm's eps

template <int kItems>
__device__ __forceinline__ float cached_sum_squares(const float (&v)[kItems]) {
  float sq = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) sq = fmaf(v[j], v[j], sq);  // padding holds 0
  return block_sum(sq);
}

template <int kWidth, int kItems>
__global__ void __launch_bounds__(row_cache_max_threads<kItems>())
    rmsnorm_cached_kernel(const float* __restrict__ x, const float* __restrict__ w,
                          float* __restrict__ y, std::int64_t rows, int n, float eps0) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float v[kItems];
    load_row_cache<kWidth, kItems>(x + row * n, n, v, 0.0f);
    float sq = cached_sum_squares(v);
    float eps = eps0;
    if (!isfinite(sq)) {  // block-uniform: x^2 overflowed for huge |x|
      // x * rsqrt(ms + eps) equals x' * rsqrt(ms' + eps * 2^-2e) for x' = x * 2^-e.
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
      eps = ldexpf(eps0, -2 * e);
      sq = cached_sum_squares(v);
    }
    const float inv_rms = 1.0f / sqrtf(sq * inv_n + eps);
#pragma unroll
    for (int i = 0; i < kItems / kWidth; ++i) {
      const int e = row_slot_start<kWidth>(i);
      if (e < n) {
        float wv[kWidth];
        load_vector<kWidth>(w, e, wv);
#pragma unroll
        for (int c = 0; c < kWidth; ++c) v[i * kWidth + c] = v[i * kWidth + c] * inv_rms * wv[c];
      }
    }
    store_row_cache<kWidth, kItems>(y + row * n, n, v);
  }
}

// Rows beyond the register cache: sum of squares re-reading the row, same overflow rescale.
__device__ float streaming_sum_squares(const float* __restrict__ xr, std::int64_t cols,
                                       float scale) {
  float sq = 0.0f;
  for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
    const float v = xr[j] * scale;
    sq = fmaf(v, v, sq);
  }
  return block_sum(sq);
}

__global__ void rmsnorm_streaming_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                         float* __restrict__ y, std::int64_t rows,
                                         std::int64_t cols, float eps0) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    float sq = streaming_sum_squares(xr, cols, 1.0f);
    float scale = 1.0f;
    float eps = eps0;
    if (!isfinite(sq)) {
      const RowRescale rescale = overflow_rescale(xr, cols, eps0);
      scale = rescale.scale;
      eps = rescale.eps;
      sq = streaming_sum_squares(xr, cols, scale);
    }
    const float inv_rms = 1.0f / sqrtf(sq * inv_cols + eps);
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      yr[j] = xr[j] * scale * inv_rms * w[j];
  }
}

// Normalizes rows of `cols` elements: rows = x.numel() / cols, cols = the weight's length.
void launch_rmsnorm_rows(const rkt::KernelCall& call, float eps) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t cols = weight.numel();
  if (cols == 0) return;
  const std::int64_t rows = x.numel() / cols;
  if (rows == 0) return;
  const float* xp = x.data_as<const float>();
  const float* wp = weight.data_as<const float>();
  float* yp = y.data_as<float>();
  const unsigned blocks = static_cast<unsigned>(std::min(rows, kMaxRowBlocks));
  if (cols > kMaxCachedRow) {
    rmsnorm_streaming_kernel<<<blocks, row_block_threads(cols), 0, stream>>>(xp, wp, yp, rows, cols,
                                                                             eps);
  } else {
    const bool aligned = is_aligned16(xp) && is_aligned16(wp) && is_aligned16(yp);
    const RowCacheShape shape = choose_row_cache(cols, aligned);
    dispatch_row_cache(shape, [&](auto width, auto items) {
      rmsnorm_cached_kernel<decltype(width)::value, decltype(items)::value>
          <<<blocks, shape.threads, 0, stream>>>(xp, wp, yp, rows, static_cast<int>(cols), eps);
    });
  }
  RKT_CUDA_CHECK_LAUNCH();
}

void rmsnorm_cuda(rkt::KernelCall& call) { launch_rmsnorm_rows(call, kRmsNormEps); }
void rkb_llama_rmsnorm_cuda(rkt::KernelCall& call) { launch_rmsnorm_rows(call, kLlamaRmsNormEps); }

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cuda_rowwise, rmsnorm_cuda)
    .describe(
        "One block per row, row cached in registers (float4 loads): sum of squares over "
        "registers, then x * rsqrt(mean + eps) * w; one read, one write");
ROBUST_KERNEL_TEST(rkb_llama_rmsnorm, cuda, rkb_llama_rmsnorm_cuda)
    .describe(
        "One block per row of H, row cached in registers (float4 loads): fp32 sum of "
        "squares over registers, then x * rsqrt(mean + 1e-5) * w; one read, one write");
