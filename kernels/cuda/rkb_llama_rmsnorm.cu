// rkb_llama_rmsnorm_backward: x (B, T, H) as R = B*T rows of H, y = x * r * w with
// r = 1 / sqrt(mean(x^2) + 1e-5). All on the call's stream, no atomics (every sum has a fixed
// order, so repeated calls are bitwise identical). (The forward task's kernel is rmsnorm.cu's
// fp32 row kernel, which replaced the fp64 forward that lived here.)
//   Backward: a grid of P = min(R, blocks resident on the device) blocks; block p takes rows p,
//     p + P, ... in order. Per row: block-reduce sum(x^2) and sum(g*w*x); r as above,
//     xhat = x * r, grad_x = r * (g*w - xhat * mean(g*w*xhat)). Each thread also adds g*xhat of
//     its columns to registers that persist over the block's rows: block p's partial of grad_w,
//     written to partial[p][H] (cudaMallocAsync scratch on the stream). sum_partials_kernel then
//     adds the P partials of each column in a fixed order. P depends only on the shape and the
//     device (SM count, occupancy). For H <= 4096 each block loads its next row of x and g into
//     a second register set before reducing the current one (one 512-thread block per SM would
//     otherwise leave memory idle during every block-wide reduction; run 8 measured 0.45 ms, 42%
//     of the copy rate for its 805 MB at 16 x 1024 x 4096; expected now about 0.25-0.3 ms).
//     Registers (nvcc 13.0, sm_90): 122 for the default H = 4096 (8 items, prefetching), 40-64
//     for shorter rows, 128 with 108 bytes of spill for 4097-8192 (16 items, no prefetch).
//   H > kMaxCachedCols (8192, the task's largest H) does not fit the registers: the generic
//     kernel re-reads the row from memory and accumulate the grad_w partials in the scratch rows.
// Arithmetic is fp64 on the fp32 data (results rounded to fp32 once). Why: for H = 1 the backward
// cancels catastrophically (grad_x = r g w * eps / (x^2 + eps), a 1e-5 remnant of its terms at
// unit scale), which fp32 cannot resolve against the float64 reference; and fp64 squares of finite
// fp32 values cannot overflow, so no rescale pass is needed for huge x. It stays memory-bound.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_sum_f64;
using rkt::cuda_kernels::kMaxRowBlocks;

constexpr double kEps = 1e-5;
constexpr int kMaxThreads = 512;  // [threads per block] of the register-cached kernels
constexpr int kMaxItems = 16;     // [columns per thread] of the register-cached kernels
constexpr std::int64_t kMaxCachedCols = std::int64_t{kMaxThreads} * kMaxItems;  // 8192
constexpr int kGenericThreads = 1024;  // [threads per block] of the generic (H > 8192) kernels
constexpr int kSumColumns = 32;        // [columns per block] of sum_partials_kernel
constexpr int kSumSlices = 8;          // [threads per column] of sum_partials_kernel

// r = 1 / sqrt(mean(x^2) + eps) from the row's sum of squares.
__device__ __forceinline__ double inverse_rms(double sum_squares, std::int64_t cols) {
  return 1.0 / sqrt(sum_squares / static_cast<double>(cols) + kEps);
}

// ---- Register-cached kernels (H <= kMaxCachedCols) ----------------------------------------------
// Thread t holds columns t + i * blockDim.x, i < kItems; columns >= cols hold zeros and are not
// written. The launch guarantees kItems * blockDim.x >= cols (and cols <= kMaxCachedCols, so
// column indices fit an int).

__device__ __forceinline__ int column(int i) {
  return static_cast<int>(threadIdx.x) + i * static_cast<int>(blockDim.x);
}

// Loads this thread's columns of row `row` of x and g (zeros beyond cols).
template <int kItems>
__device__ __forceinline__ void load_row_columns(const float* __restrict__ x,
                                                 const float* __restrict__ g, std::int64_t row,
                                                 std::int64_t cols, float (&xv)[kItems],
                                                 float (&gv)[kItems]) {
  const float* xr = x + row * cols;
  const float* gr = g + row * cols;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int c = column(i);
    const bool in = c < cols;
    xv[i] = in ? xr[c] : 0.0f;
    gv[i] = in ? gr[c] : 0.0f;
  }
}

// Writes grad_x, and block p's grad_w partial to partial[p * cols + c] for every column c.
// Registers per thread: x and g of its columns and its fp64 columns of the partial; w[c] is read
// where needed (every row uses the same H values, so they stay in L1/L2). With kPrefetch, the
// block's next row of x and g is loaded into a second set of registers before the current row's
// reductions, so its memory latency overlaps them (one block per SM otherwise leaves the memory
// system idle during every block-wide reduction).
template <int kItems, bool kPrefetch>
__global__ void __launch_bounds__(kMaxThreads)
    rmsnorm_backward_kernel(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ g, float* __restrict__ grad_x,
                            double* __restrict__ partial, std::int64_t rows, std::int64_t cols) {
  double grad_w_sum[kItems];  // this thread's columns of block p's grad_w partial
#pragma unroll
  for (int i = 0; i < kItems; ++i) grad_w_sum[i] = 0.0;
  float xv[kItems];
  float gv[kItems];
  if (kPrefetch && blockIdx.x < rows) load_row_columns(x, g, blockIdx.x, cols, xv, gv);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float* gxr = grad_x + row * cols;
    float xn[kItems];
    float gn[kItems];
    if constexpr (kPrefetch) {
      const std::int64_t next = row + gridDim.x;
      if (next < rows) {
        load_row_columns(x, g, next, cols, xn, gn);  // in flight during this row's work
      } else {
#pragma unroll
        for (int i = 0; i < kItems; ++i) xn[i] = gn[i] = 0.0f;
      }
    } else {
      load_row_columns(x, g, row, cols, xv, gv);
    }
    double sums[2] = {0.0, 0.0};  // sum x^2, sum g*w*x
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = column(i);
      const double xd = xv[i];
      const double gw = c < cols ? static_cast<double>(gv[i]) * static_cast<double>(w[c]) : 0.0;
      sums[0] = fma(xd, xd, sums[0]);
      sums[1] = fma(gw, xd, sums[1]);
    }
    block_sum_f64(sums);
    const double r = inverse_rms(sums[0], cols);
    const double mean_gw_xhat = r * sums[1] / static_cast<double>(cols);
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const int c = column(i);
      if (c < cols) {
        const double xhat = static_cast<double>(xv[i]) * r;
        const double gw = static_cast<double>(gv[i]) * static_cast<double>(w[c]);  // exact
        gxr[c] = static_cast<float>(r * (gw - xhat * mean_gw_xhat));
        grad_w_sum[i] = fma(static_cast<double>(gv[i]), xhat, grad_w_sum[i]);
      }
    }
    if constexpr (kPrefetch) {
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        xv[i] = xn[i];
        gv[i] = gn[i];
      }
    }
  }
  double* mine = partial + blockIdx.x * cols;
#pragma unroll
  for (int i = 0; i < kItems; ++i) {
    const int c = column(i);
    if (c < cols) mine[c] = grad_w_sum[i];
  }
}

// Whether the kItems variant prefetches the next row: the 16-item variant would need more than
// the 128 registers a 512-thread block allows (nvcc 13.0), so it does not; the 1-item variant
// spilled 8 bytes with it (rows of at most 512, launch-bound anyway).
constexpr bool prefetches(int items) { return items >= 2 && items <= 8; }

// ---- Generic kernels (any H; used beyond kMaxCachedCols) ---------------------------------------

// Same rows-to-blocks split and outputs as rmsnorm_backward_kernel; the grad_w partial is
// accumulated in place in partial[p * cols + c] (each element has one owning thread).
__global__ void __launch_bounds__(kGenericThreads)
    rmsnorm_backward_generic_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ g, float* __restrict__ grad_x,
                                    double* __restrict__ partial, std::int64_t rows,
                                    std::int64_t cols) {
  double* mine = partial + blockIdx.x * cols;
  for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) mine[c] = 0.0;
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    const float* gr = g + row * cols;
    float* gxr = grad_x + row * cols;
    double sums[2] = {0.0, 0.0};  // sum x^2, sum g*w*x
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
      const double xd = xr[c];
      const double gw = static_cast<double>(gr[c]) * static_cast<double>(w[c]);
      sums[0] = fma(xd, xd, sums[0]);
      sums[1] = fma(gw, xd, sums[1]);
    }
    block_sum_f64(sums);
    const double r = inverse_rms(sums[0], cols);
    const double mean_gw_xhat = r * sums[1] / static_cast<double>(cols);
    for (std::int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
      const double xhat = static_cast<double>(xr[c]) * r;
      const double gd = gr[c];
      gxr[c] = static_cast<float>(r * (gd * static_cast<double>(w[c]) - xhat * mean_gw_xhat));
      mine[c] = fma(gd, xhat, mine[c]);
    }
  }
}

// grad_w[c] = sum over p < parts of partial[p * cols + c] (zeros when parts == 0). A block takes
// kSumColumns consecutive columns; its kSumSlices slices of threads each add every kSumSlices-th
// partial (p = slice, slice + kSumSlices, ...) in order, and slice 0 adds the slice sums in order.
__global__ void __launch_bounds__(kSumColumns* kSumSlices)
    sum_partials_kernel(const double* __restrict__ partial, float* __restrict__ out,
                        std::int64_t parts, std::int64_t cols) {
  __shared__ double slice_sum[kSumSlices][kSumColumns];
  const int lane = static_cast<int>(threadIdx.x) % kSumColumns;
  const int slice = static_cast<int>(threadIdx.x) / kSumColumns;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kSumColumns; first < cols;
       first += static_cast<std::int64_t>(gridDim.x) * kSumColumns) {
    const std::int64_t c = first + lane;
    double sum = 0.0;
    if (c < cols) {
#pragma unroll 4
      for (std::int64_t p = slice; p < parts; p += kSumSlices) sum += partial[p * cols + c];
    }
    slice_sum[slice][lane] = sum;
    __syncthreads();
    if (slice == 0 && c < cols) {
      double total = 0.0;
#pragma unroll
      for (int s = 0; s < kSumSlices; ++s) total += slice_sum[s][lane];
      out[c] = static_cast<float>(total);
    }
    __syncthreads();  // slice_sum is reused by the next columns
  }
}

// ---- Host ---------------------------------------------------------------------------------------

// Columns per thread (a power of two, at most kMaxItems) and threads per block (a multiple of 32,
// at most kMaxThreads) of the register-cached kernels, for rows of 1 <= cols <= kMaxCachedCols.
struct CachedTiling {
  int items;
  int threads;
};

CachedTiling cached_tiling(std::int64_t cols) {
  int items = 1;
  while (static_cast<std::int64_t>(items) * kMaxThreads < cols) items *= 2;
  const std::int64_t threads = (cols + items - 1) / items;
  return {items, static_cast<int>((threads + 31) / 32 * 32)};
}

// Calls launch(std::integral_constant<int, items>{}) for items in {1, 2, 4, 8, 16}.
template <typename Launch>
void with_items(int items, Launch&& launch) {
  static_assert(kMaxItems == 16, "with_items lists the instantiations up to kMaxItems");
  switch (items) {
    case 1:
      return launch(std::integral_constant<int, 1>{});
    case 2:
      return launch(std::integral_constant<int, 2>{});
    case 4:
      return launch(std::integral_constant<int, 4>{});
    case 8:
      return launch(std::integral_constant<int, 8>{});
    default:
      return launch(std::integral_constant<int, 16>{});
  }
}

// Blocks of `kernel` (at `threads` per block) that the current device holds at once: the
// backward's P. Depends only on the device, so repeated calls split the rows identically.
template <typename Kernel>
std::int64_t resident_blocks(Kernel kernel, int threads) {
  int device = 0;
  RKT_CUDA_CHECK(cudaGetDevice(&device));
  int multiprocessors = 0;
  RKT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  int per_multiprocessor = 0;
  RKT_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, threads, 0));
  return static_cast<std::int64_t>(std::max(multiprocessors, 1)) * std::max(per_multiprocessor, 1);
}

// Inputs: x, w, grad_y. Outputs: grad_x, grad_w.
void rkb_llama_rmsnorm_backward_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& grad_y = call.input(2);
  const rkt::TensorView& grad_x = call.output(0);
  const rkt::TensorView& grad_w = call.output(1);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t cols = weight.numel();
  if (cols == 0) return;
  const std::int64_t rows = x.numel() / cols;
  const float* xp = x.data_as<const float>();
  const float* wp = weight.data_as<const float>();
  const float* gp = grad_y.data_as<const float>();
  float* gxp = grad_x.data_as<float>();

  // Pick the kernel and P (the number of blocks, hence of grad_w partials).
  const bool cached = cols <= kMaxCachedCols;
  const CachedTiling tiling = cached ? cached_tiling(cols) : CachedTiling{0, kGenericThreads};
  std::int64_t parts = 0;
  if (rows > 0) {
    std::int64_t resident = 0;
    if (cached) {
      with_items(tiling.items, [&](auto items) {
        resident = resident_blocks(
            rmsnorm_backward_kernel<decltype(items)::value, prefetches(decltype(items)::value)>,
            tiling.threads);
      });
    } else {
      resident = resident_blocks(rmsnorm_backward_generic_kernel, kGenericThreads);
    }
    parts = std::min({rows, resident, kMaxRowBlocks});
  }

  double* partial = nullptr;  // [parts][cols]
  cudaError_t status = cudaSuccess;
  if (parts > 0) {
    RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partial),
                                   static_cast<std::size_t>(parts * cols) * sizeof(double),
                                   stream));
    const unsigned blocks = static_cast<unsigned>(parts);
    if (cached) {
      with_items(tiling.items, [&](auto items) {
        rmsnorm_backward_kernel<decltype(items)::value, prefetches(decltype(items)::value)>
            <<<blocks, tiling.threads, 0, stream>>>(xp, wp, gp, gxp, partial, rows, cols);
      });
    } else {
      rmsnorm_backward_generic_kernel<<<blocks, kGenericThreads, 0, stream>>>(xp, wp, gp, gxp,
                                                                              partial, rows, cols);
    }
    status = cudaGetLastError();
  }
  if (status == cudaSuccess) {
    const std::int64_t sum_blocks =
        std::min<std::int64_t>((cols + kSumColumns - 1) / kSumColumns, kMaxRowBlocks);
    sum_partials_kernel<<<static_cast<unsigned>(sum_blocks), kSumColumns * kSumSlices, 0, stream>>>(
        partial, grad_w.data_as<float>(), parts, cols);
    status = cudaGetLastError();
  }
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = partial != nullptr ? cudaFreeAsync(partial, stream) : cudaSuccess;
  RKT_CUDA_CHECK(status);
  RKT_CUDA_CHECK(free_status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_llama_rmsnorm_backward, cuda, rkb_llama_rmsnorm_backward_cuda)
    .device(rkt::Device::cuda)
    .describe(
        "Resident blocks walk rows: fp64 row sums, grad_x, per-block grad_w partials in "
        "registers, then a fixed-order column sum of the partials");
