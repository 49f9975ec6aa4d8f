// low_precision_rows.cuh: the row-wise kernels for bf16 / fp16 data (softmax, layernorm, rmsnorm
// over the last dim of [rows, n], and cross-entropy's per-row loss), and their launch functions;
// low_precision_rows.cu registers them. All arithmetic is fp32; inputs are converted on load and
// outputs rounded to the format once, at the store (cross-entropy writes fp32 losses).
//
// Design (as row_cache.cuh for fp32): one block per row (grid-stride over rows), the row held in
// registers as fp32, so every statistic is a reduction over registers (block_sum / block_max of
// row_reduction.cuh) and x is read once and y written once: 4 bytes per element, the minimum.
// Thread t holds kItems elements as vectors of kWidth: 8 (one 16-byte load of 8 elements) when
// every row the kernel touches is 16-byte aligned (base aligned and n % 8 == 0), else 1 (2-byte
// loads, the misaligned-pointer case and odd n). Vector slot i of thread t starts at element
// (i * blockDim.x + t) * kWidth, so a warp's loads are contiguous. Rows up to kMaxCachedRow
// (32768) are cached; longer rows take a streaming kernel that re-reads the row (from L2).
// Statistics that overflow fp32 (bf16 shares fp32's range: |x| ~ 1e19+ squares to infinity) are
// redone on the row scaled by a power of two, which is exact (layernorm, rmsnorm).
// cross_entropy: one pass per row with an online logsumexp (running max and sum of exp), no
// cache, any V; loss = max + log(sum) - x[target] in fp32; an out-of-range target gives NaN
// instead of an out-of-bounds read.
// Traffic: softmax / norms 4 bytes per element (x read, y written; weight and bias from L1/L2);
// cross_entropy 2 bytes per element + 12 per row. Measured on the H200 (tests/kernel_gpu_check,
// 4096 x 8192, CUDA events): softmax 0.045 ms bf16 / 0.037 fp16 (75-91% of the 4.0 TB/s copy
// bandwidth; PyTorch eager 0.131 ms), layernorm 0.043 (79%; eager 0.065), rmsnorm 0.042 / 0.038
// (80-89%; eager 0.055); cross_entropy 0.100 ms at 4096 x 32768 (67%; eager 0.193) and 0.087 ms
// at 1024 x 128256 (76%; eager 0.276). What limits them: one block per row with a block-wide
// reduction between the load and the store (latency, not bandwidth, at 8192 elements per row).
// Registers (nvcc 13.0, sm_90): the 32-item variants (rows over 8192, 1024 threads) spill 12-280
// bytes; the others none.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "low_precision_mma.cuh"
#include "row_reduction.cuh"

namespace rkt::cuda_kernels::low_precision_rows {

namespace lp = rkt::cuda_kernels::low_precision;
using rkt::cuda_kernels::block_max;
using rkt::cuda_kernels::block_sum;

constexpr int kMaxThreads = 1024;       // [threads per block]
constexpr int kPreferredThreads = 256;  // [threads per block] below it rows get more items instead
constexpr int kMaxItems = 32;           // [elements per thread]
constexpr std::int64_t kMaxCachedRow = std::int64_t{kMaxThreads} * kMaxItems;
constexpr std::int64_t kMaxRowBlocks = 65535;
constexpr float kLayerNormEps = 1e-5f;
constexpr float kRmsNormEps = 1e-6f;

template <int kItems>
constexpr int max_threads() {
  return kItems == kMaxItems ? kMaxThreads : kPreferredThreads;
}

// ---- The register cache of one row
// ---------------------------------------------------------------

template <int kWidth>
__device__ __forceinline__ int slot_start(int i) {
  return (i * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)) * kWidth;
}

// Loads this thread's slots of row[0, n) as fp32; elements past n get `fill`.
template <class Format, int kWidth, int kItems>
__device__ __forceinline__ void load_row(const std::uint16_t* __restrict__ row, int n,
                                         float (&v)[kItems], float fill) {
  static_assert(kWidth == 1 || kWidth == 8, "vectors of 1 or 8 elements");
  static_assert(kItems % kWidth == 0, "whole vectors per thread");
#pragma unroll
  for (int i = 0; i < kItems / kWidth; ++i) {
    const int e = slot_start<kWidth>(i);
    if constexpr (kWidth == 8) {
      if (e < n) {  // n % 8 == 0: the whole vector is inside
        const uint4 q = __ldg(reinterpret_cast<const uint4*>(row + e));
        const unsigned words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          v[8 * i + 2 * w] = lp::low_half<Format>(words[w]);
          v[8 * i + 2 * w + 1] = lp::high_half<Format>(words[w]);
        }
      } else {
#pragma unroll
        for (int c = 0; c < 8; ++c) v[8 * i + c] = fill;
      }
    } else {
      v[i] = e < n ? Format::to_float(row[e]) : fill;
    }
  }
}

// Loads the kWidth elements p[e, e + kWidth) as fp32.
template <class Format, int kWidth>
__device__ __forceinline__ void load_vector(const std::uint16_t* __restrict__ p, int e,
                                            float (&out)[kWidth]) {
  if constexpr (kWidth == 8) {
    const uint4 q = __ldg(reinterpret_cast<const uint4*>(p + e));
    const unsigned words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      out[2 * w] = lp::low_half<Format>(words[w]);
      out[2 * w + 1] = lp::high_half<Format>(words[w]);
    }
  } else {
    out[0] = Format::to_float(p[e]);
  }
}

// Rounds and stores this thread's elements that lie inside row[0, n).
template <class Format, int kWidth, int kItems>
__device__ __forceinline__ void store_row(std::uint16_t* __restrict__ row, int n,
                                          const float (&v)[kItems]) {
#pragma unroll
  for (int i = 0; i < kItems / kWidth; ++i) {
    const int e = slot_start<kWidth>(i);
    if (e < n) {
      if constexpr (kWidth == 8) {
        uint4 q;
        q.x = Format::pack(v[8 * i], v[8 * i + 1]);
        q.y = Format::pack(v[8 * i + 2], v[8 * i + 3]);
        q.z = Format::pack(v[8 * i + 4], v[8 * i + 5]);
        q.w = Format::pack(v[8 * i + 6], v[8 * i + 7]);
        *reinterpret_cast<uint4*>(row + e) = q;
      } else {
        row[e] = Format::from_float(v[i]);
      }
    }
  }
}

template <int kWidth>
__device__ __forceinline__ bool inside(int j, int n) {
  return slot_start<kWidth>(j / kWidth) + j % kWidth < n;
}

// ---- softmax
// -------------------------------------------------------------------------------------

template <class Format, int kWidth, int kItems>
__global__ void __launch_bounds__(max_threads<kItems>())
    softmax_cached_kernel(const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ y,
                          std::int64_t rows, int n) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float v[kItems];
    load_row<Format, kWidth, kItems>(x + row * n, n, v, -INFINITY);
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < kItems; ++j) m = fmaxf(m, v[j]);
    m = block_max(m, -INFINITY);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      v[j] = expf(v[j] - m);  // padding: exp(-inf) = 0
      s += v[j];
    }
    const float inv = 1.0f / block_sum(s);
#pragma unroll
    for (int j = 0; j < kItems; ++j) v[j] *= inv;
    store_row<Format, kWidth, kItems>(y + row * n, n, v);
  }
}

template <class Format>
__global__ void softmax_streaming_kernel(const std::uint16_t* __restrict__ x,
                                         std::uint16_t* __restrict__ y, std::int64_t rows,
                                         std::int64_t n) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const std::uint16_t* xr = x + row * n;
    float m = -INFINITY;
    for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x)
      m = fmaxf(m, Format::to_float(xr[j]));
    m = block_max(m, -INFINITY);
    float s = 0.0f;
    for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x)
      s += expf(Format::to_float(xr[j]) - m);
    const float inv = 1.0f / block_sum(s);
    for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x)
      y[row * n + j] = Format::from_float(expf(Format::to_float(xr[j]) - m) * inv);
  }
}

// ---- layernorm and rmsnorm
// -----------------------------------------------------------------------

// The power of two that brings the row's largest |x| below 1 (block-uniform).
template <int kItems>
__device__ __forceinline__ float overflow_scale(const float (&v)[kItems]) {
  float amax = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) amax = fmaxf(amax, fabsf(v[j]));
  amax = block_max(amax, 0.0f);
  int e = 0;
  frexpf(amax, &e);
  return ldexpf(1.0f, -max(e, 0));
}

// Mean and biased variance of the cached row (padding holds 0 and is excluded).
template <int kWidth, int kItems>
__device__ __forceinline__ void row_moments(const float (&v)[kItems], int n, float& mean,
                                            float& var) {
  const float inv_n = 1.0f / static_cast<float>(n);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) s += v[j];
  mean = block_sum(s) * inv_n;
  float sq = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const float d = inside<kWidth>(j, n) ? v[j] - mean : 0.0f;
    sq = fmaf(d, d, sq);
  }
  var = block_sum(sq) * inv_n;
}

// kRms: y = x / sqrt(mean(x^2) + eps) * w; else y = (x - mean) / sqrt(var + eps) * w + b.
template <class Format, bool kRms, int kWidth, int kItems>
__global__ void __launch_bounds__(max_threads<kItems>())
    norm_cached_kernel(const std::uint16_t* __restrict__ x, const std::uint16_t* __restrict__ w,
                       const std::uint16_t* __restrict__ b, std::uint16_t* __restrict__ y,
                       std::int64_t rows, int n) {
  const float base_eps = kRms ? kRmsNormEps : kLayerNormEps;
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float v[kItems];
    load_row<Format, kWidth, kItems>(x + row * n, n, v, 0.0f);
    float eps = base_eps;
    float mean = 0.0f;
    float var = 0.0f;
    const auto statistics = [&] {
      if constexpr (kRms) {
        float sq = 0.0f;
#pragma unroll
        for (int j = 0; j < kItems; ++j) sq = fmaf(v[j], v[j], sq);
        var = block_sum(sq) / static_cast<float>(n);
      } else {
        row_moments<kWidth>(v, n, mean, var);
      }
    };
    statistics();
    if (!isfinite(mean) || !isfinite(var)) {  // block-uniform: the statistics overflowed
      // x' = x 2^-e and eps' = eps 2^-2e give exactly the same normalized values.
      const float scale = overflow_scale(v);
#pragma unroll
      for (int j = 0; j < kItems; ++j) v[j] *= scale;
      eps *= scale * scale;
      statistics();
    }
    const float inv_std = 1.0f / sqrtf(var + eps);
#pragma unroll
    for (int i = 0; i < kItems / kWidth; ++i) {
      const int e = slot_start<kWidth>(i);
      if (e < n) {
        float wv[kWidth];
        load_vector<Format, kWidth>(w, e, wv);
        if constexpr (kRms) {
#pragma unroll
          for (int c = 0; c < kWidth; ++c) v[i * kWidth + c] = v[i * kWidth + c] * inv_std * wv[c];
        } else {
          float bv[kWidth];
          load_vector<Format, kWidth>(b, e, bv);
#pragma unroll
          for (int c = 0; c < kWidth; ++c)
            v[i * kWidth + c] = fmaf((v[i * kWidth + c] - mean) * inv_std, wv[c], bv[c]);
        }
      }
    }
    store_row<Format, kWidth, kItems>(y + row * n, n, v);
  }
}

// Rows past the register cache: the statistics re-read the row, with the same overflow rescale.
template <class Format, bool kRms>
__global__ void norm_streaming_kernel(const std::uint16_t* __restrict__ x,
                                      const std::uint16_t* __restrict__ w,
                                      const std::uint16_t* __restrict__ b,
                                      std::uint16_t* __restrict__ y, std::int64_t rows,
                                      std::int64_t n) {
  const float inv_n = 1.0f / static_cast<float>(n);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const std::uint16_t* xr = x + row * n;
    const auto statistics = [&](float scale, float& mean, float& var) {
      float s = 0.0f;
      float sq = 0.0f;
      if constexpr (!kRms) {
        for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x)
          s += Format::to_float(xr[j]) * scale;
        mean = block_sum(s) * inv_n;
      } else {
        mean = 0.0f;
      }
      for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) {
        const float d = Format::to_float(xr[j]) * scale - mean;
        sq = fmaf(d, d, sq);
      }
      var = block_sum(sq) * inv_n;
    };
    float scale = 1.0f;
    float eps = kRms ? kRmsNormEps : kLayerNormEps;
    float mean, var;
    statistics(scale, mean, var);
    if (!isfinite(mean) || !isfinite(var)) {
      float amax = 0.0f;
      for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x)
        amax = fmaxf(amax, fabsf(Format::to_float(xr[j])));
      amax = block_max(amax, 0.0f);
      int e = 0;
      frexpf(amax, &e);
      scale = ldexpf(1.0f, -max(e, 0));
      eps *= scale * scale;
      statistics(scale, mean, var);
    }
    const float inv_std = 1.0f / sqrtf(var + eps);
    for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) {
      const float xn = (Format::to_float(xr[j]) * scale - mean) * inv_std * Format::to_float(w[j]);
      y[row * n + j] = Format::from_float(kRms ? xn : xn + Format::to_float(b[j]));
    }
  }
}

// ---- cross_entropy
// -------------------------------------------------------------------------------

struct LogSumExp {
  float m;  // running max; -inf: nothing seen yet
  float s;  // sum of exp(x - m)
};

__device__ __forceinline__ LogSumExp combine(LogSumExp a, LogSumExp b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// One row per block of kCrossEntropyThreads; kWidth elements per load.
constexpr int kCrossEntropyThreads = 512;

template <class Format, int kWidth>
__global__ void __launch_bounds__(kCrossEntropyThreads)
    cross_entropy_kernel(const std::uint16_t* __restrict__ logits,
                         const std::int64_t* __restrict__ target, float* __restrict__ loss,
                         std::int64_t rows, std::int64_t classes) {
  __shared__ LogSumExp partial[kCrossEntropyThreads / 32];
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const std::uint16_t* xr = logits + row * classes;
    LogSumExp acc{-INFINITY, 0.0f};
    constexpr int kUnroll = 2;  // vectors in flight per thread
    constexpr std::int64_t kStep = std::int64_t{kCrossEntropyThreads} * kWidth;
    for (std::int64_t e0 = std::int64_t{threadIdx.x} * kWidth; e0 < classes;
         e0 += kStep * kUnroll) {
      float v[kUnroll * kWidth];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t e = e0 + u * kStep;
        if constexpr (kWidth == 8) {
          if (e < classes) {  // classes % 8 == 0: the whole vector is inside
            const uint4 q = __ldg(reinterpret_cast<const uint4*>(xr + e));
            const unsigned words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int w = 0; w < 4; ++w) {
              v[8 * u + 2 * w] = lp::low_half<Format>(words[w]);
              v[8 * u + 2 * w + 1] = lp::high_half<Format>(words[w]);
            }
          } else {
#pragma unroll
            for (int c = 0; c < 8; ++c) v[8 * u + c] = -INFINITY;
          }
        } else {
          v[u] = e < classes ? Format::to_float(xr[e]) : -INFINITY;
        }
      }
      float chunk_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kUnroll * kWidth; ++j) chunk_max = fmaxf(chunk_max, v[j]);
      const float m = fmaxf(acc.m, chunk_max);
      if (m != -INFINITY) {
        float s = acc.s * expf(acc.m - m);
#pragma unroll
        for (int j = 0; j < kUnroll * kWidth; ++j) s += expf(v[j] - m);
        acc = {m, s};
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const LogSumExp other{__shfl_xor_sync(0xffffffffu, acc.m, offset),
                            __shfl_xor_sync(0xffffffffu, acc.s, offset)};
      acc = combine(acc, other);
    }
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    __syncthreads();  // the previous row's readers are done with `partial`
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      LogSumExp total = partial[0];
#pragma unroll
      for (int i = 1; i < kCrossEntropyThreads / 32; ++i) total = combine(total, partial[i]);
      const std::int64_t t = target[row];
      loss[row] = (t >= 0 && t < classes) ? total.m + logf(total.s) - Format::to_float(xr[t]) : NAN;
    }
  }
}

// ---- Launch functions
// ------------------------------------------------------------------------------

struct CacheShape {
  int width;    // 8 or 1
  int items;    // 8, 16 or 32
  int threads;  // a multiple of 32, at most kMaxThreads
};

inline CacheShape choose_cache(std::int64_t n, bool vectorizable) {
  const int width = vectorizable && n % 8 == 0 ? 8 : 1;
  for (int items = 8; items <= kMaxItems; items *= 2) {
    const std::int64_t threads = (n + items - 1) / items;
    if (threads <= kPreferredThreads || items == kMaxItems) {
      return {width, items, static_cast<int>((threads + 31) / 32 * 32)};
    }
  }
  return {width, kMaxItems, kMaxThreads};
}

// Calls launch(integral_constant<kWidth>, integral_constant<kItems>).
template <class Launch>
void dispatch_cache(const CacheShape& shape, Launch&& launch) {
  using std::integral_constant;
  const auto with_items = [&](auto width) {
    switch (shape.items) {
      case 8:
        launch(width, integral_constant<int, 8>{});
        return;
      case 16:
        launch(width, integral_constant<int, 16>{});
        return;
      case 32:
        launch(width, integral_constant<int, 32>{});
        return;
      default:
        throw std::logic_error("low_precision_rows: unsupported items per thread");
    }
  };
  if (shape.width == 8) {
    with_items(integral_constant<int, 8>{});
  } else {
    with_items(integral_constant<int, 1>{});
  }
}

inline unsigned row_blocks(std::int64_t rows) {
  return static_cast<unsigned>(std::min(rows, kMaxRowBlocks));
}

// Threads of a streaming block for rows of n elements.
inline int streaming_threads(std::int64_t n) { return n >= 16384 ? 1024 : 256; }

template <class Format>
cudaError_t launch_softmax(const std::uint16_t* x, std::uint16_t* y, std::int64_t rows,
                           std::int64_t n, cudaStream_t stream) {
  if (n > kMaxCachedRow) {
    softmax_streaming_kernel<Format>
        <<<row_blocks(rows), streaming_threads(n), 0, stream>>>(x, y, rows, n);
  } else {
    const CacheShape shape = choose_cache(n, lp::aligned16(x) && lp::aligned16(y));
    dispatch_cache(shape, [&](auto width, auto items) {
      softmax_cached_kernel<Format, decltype(width)::value, decltype(items)::value>
          <<<row_blocks(rows), shape.threads, 0, stream>>>(x, y, rows, static_cast<int>(n));
    });
  }
  return cudaGetLastError();
}

// b is ignored (may be null) when kRms.
template <class Format, bool kRms>
cudaError_t launch_norm(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b,
                        std::uint16_t* y, std::int64_t rows, std::int64_t n, cudaStream_t stream) {
  if (n > kMaxCachedRow) {
    norm_streaming_kernel<Format, kRms>
        <<<row_blocks(rows), streaming_threads(n), 0, stream>>>(x, w, b, y, rows, n);
  } else {
    const bool aligned =
        lp::aligned16(x) && lp::aligned16(w) && lp::aligned16(y) && (kRms || lp::aligned16(b));
    const CacheShape shape = choose_cache(n, aligned);
    dispatch_cache(shape, [&](auto width, auto items) {
      norm_cached_kernel<Format, kRms, decltype(width)::value, decltype(items)::value>
          <<<row_blocks(rows), shape.threads, 0, stream>>>(x, w, b, y, rows, static_cast<int>(n));
    });
  }
  return cudaGetLastError();
}

template <class Format>
cudaError_t launch_cross_entropy(const std::uint16_t* logits, const std::int64_t* target,
                                 float* loss, std::int64_t rows, std::int64_t classes,
                                 cudaStream_t stream) {
  if (lp::aligned16(logits) && classes % 8 == 0) {
    cross_entropy_kernel<Format, 8><<<row_blocks(rows), kCrossEntropyThreads, 0, stream>>>(
        logits, target, loss, rows, classes);
  } else {
    cross_entropy_kernel<Format, 1><<<row_blocks(rows), kCrossEntropyThreads, 0, stream>>>(
        logits, target, loss, rows, classes);
  }
  return cudaGetLastError();
}

}  // namespace rkt::cuda_kernels::low_precision_rows
