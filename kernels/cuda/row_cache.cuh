// row_cache.cuh: single-pass row kernels that keep their row in registers.
//
// The row kernels (softmax, layernorm, rmsnorm, sum_dim) read each row once: one block per row,
// thread t holds kItems elements of it in registers, so every statistic (max, mean, variance,
// sum of squares) is a reduction over registers and the output is written from them. A row of
// n floats costs 4n bytes read and (for the normalisations) 4n written, the minimum.
//
// Layout of a row in a block: the row is cut into vectors of kWidth floats (4: one 16-byte load;
// 1: a scalar load, for rows that are not 16-byte aligned or whose length is not a multiple of
// 4). Vector slot i of thread t starts at element (i * blockDim.x + t) * kWidth, so a warp's
// loads are contiguous (coalesced) and each thread issues kItems / kWidth independent loads
// before it uses any of them. Slots at or beyond n hold `fill` and are never stored.
//
// Host side: choose_row_cache picks (kWidth, kItems, threads) so that threads * kItems >= n with
// at most kMaxCachedRow elements per row; dispatch_row_cache calls a generic lambda with
// kWidth and kItems as compile-time constants. Rows longer than kMaxCachedRow are not handled
// here (the kernels fall back to their streaming versions in row_reduction.cuh).
// tests/kernel_emulation/ checks the slot layout and the shapes on the CPU (RKT_CUDA_EMULATION).
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace rkt::cuda_kernels {

constexpr int kMaxRowCacheThreads = 1024;  // [threads per block]
constexpr int kMaxRowCacheItems = 32;      // [floats per thread]
constexpr std::int64_t kMaxCachedRow = std::int64_t{kMaxRowCacheThreads} * kMaxRowCacheItems;
// Below this many threads a row gets more items per thread rather than a bigger block, so blocks
// stay small (many resident per SM) for the common row lengths.
constexpr int kPreferredRowCacheThreads = 256;  // [threads per block]

// Launch bounds of a cached row kernel: only the 32-item variant runs with up to 1024 threads
// (choose_row_cache never gives the others more than kPreferredRowCacheThreads).
template <int kItems>
constexpr int row_cache_max_threads() {
  return kItems == kMaxRowCacheItems ? kMaxRowCacheThreads : kPreferredRowCacheThreads;
}

// First element of vector slot i of this thread.
template <int kWidth>
__device__ __forceinline__ int row_slot_start(int i) {
  return (i * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x)) * kWidth;
}

// Loads this thread's slots of row[0, n) into v; slots beyond n get `fill`. For kWidth == 4 the
// caller guarantees n % 4 == 0 and a 16-byte aligned row.
template <int kWidth, int kItems>
__device__ __forceinline__ void load_row_cache(const float* __restrict__ row, int n,
                                               float (&v)[kItems], float fill) {
  static_assert(kWidth == 1 || kWidth == 4, "vectors of 1 or 4 floats");
  static_assert(kItems % kWidth == 0, "whole vectors per thread");
#pragma unroll
  for (int i = 0; i < kItems / kWidth; ++i) {
    const int e = row_slot_start<kWidth>(i);
    if constexpr (kWidth == 4) {
      if (e < n) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(row + e));
        v[4 * i] = q.x;
        v[4 * i + 1] = q.y;
        v[4 * i + 2] = q.z;
        v[4 * i + 3] = q.w;
      } else {
        v[4 * i] = v[4 * i + 1] = v[4 * i + 2] = v[4 * i + 3] = fill;
      }
    } else {
      v[i] = e < n ? __ldg(row + e) : fill;
    }
  }
}

// Loads the kWidth floats p[e, e + kWidth) (16-byte aligned for kWidth == 4).
template <int kWidth>
__device__ __forceinline__ void load_vector(const float* __restrict__ p, int e,
                                            float (&out)[kWidth]) {
  if constexpr (kWidth == 4) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(p + e));
    out[0] = q.x;
    out[1] = q.y;
    out[2] = q.z;
    out[3] = q.w;
  } else {
    out[0] = __ldg(p + e);
  }
}

// True when element j of this thread's cache (0 <= j < kItems) lies inside the row.
template <int kWidth>
__device__ __forceinline__ bool row_cache_valid(int j, int n) {
  return row_slot_start<kWidth>(j / kWidth) + j % kWidth < n;
}

// Column of element j of this thread's cache.
template <int kWidth>
__device__ __forceinline__ int row_cache_column(int j) {
  return row_slot_start<kWidth>(j / kWidth) + j % kWidth;
}

// Stores this thread's elements that lie inside row[0, n).
template <int kWidth, int kItems>
__device__ __forceinline__ void store_row_cache(float* __restrict__ row, int n,
                                                const float (&v)[kItems]) {
#pragma unroll
  for (int i = 0; i < kItems / kWidth; ++i) {
    const int e = row_slot_start<kWidth>(i);
    if (e < n) {
      if constexpr (kWidth == 4) {
        *reinterpret_cast<float4*>(row + e) =
            make_float4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
      } else {
        row[e] = v[i];
      }
    }
  }
}

struct RowCacheShape {
  int width;    // floats per vector: 4 or 1
  int items;    // floats per thread: 4, 8, 16 or 32
  int threads;  // a multiple of 32, at most kMaxRowCacheThreads
};

// The cached-row shape for rows of n (1 <= n <= kMaxCachedRow) floats. `vectorizable`: every
// pointer the kernel reads or writes rows through is 16-byte aligned and n % 4 == 0.
inline RowCacheShape choose_row_cache(std::int64_t n, bool vectorizable) {
  const int width = vectorizable && n % 4 == 0 ? 4 : 1;
  for (int items = 4; items <= kMaxRowCacheItems; items *= 2) {
    const std::int64_t threads = (n + items - 1) / items;
    if (threads <= kPreferredRowCacheThreads || items == kMaxRowCacheItems) {
      return {width, items, static_cast<int>((threads + 31) / 32 * 32)};
    }
  }
  return {width, kMaxRowCacheItems, kMaxRowCacheThreads};  // not reached for n <= kMaxCachedRow
}

// Calls launch(std::integral_constant<int, kWidth>, std::integral_constant<int, kItems>) for the
// shape's width and items.
template <class Launch>
void dispatch_row_cache(const RowCacheShape& shape, Launch&& launch) {
  using std::integral_constant;
  const auto with_items = [&](auto width) {
    switch (shape.items) {
      case 4:
        launch(width, integral_constant<int, 4>{});
        return;
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
        throw std::logic_error("dispatch_row_cache: unsupported items per thread");
    }
  };
  if (shape.width == 4) {
    with_items(integral_constant<int, 4>{});
  } else {
    with_items(integral_constant<int, 1>{});
  }
}

// True when p is 16-byte aligned (for float4 access).
inline bool is_aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace rkt::cuda_kernels
