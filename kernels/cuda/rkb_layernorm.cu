// rkb_layernorm and rkb_layernorm_backward: LayerNorm of each sample x[b] over its last three dims,
// i.e. over rows of N = F*D1*D2 elements (4,194,304 at the benchmark size, with only B = 16 rows),
// so each row is split over many blocks. Three kernels, all on the call's stream, no atomics
// (every sum has a fixed order, so repeated calls are bitwise identical):
//   1. chunk_stats_kernel: one block per (chunk of kChunk elements, row). The block keeps its chunk
//      in registers and runs a two-pass over it: S_c = sum x, m_c = S_c / n_c, then
//      M2_c = sum (x - m_c)^2; the backward also A_c = sum g*w and C_c = sum g*w*(x - m_c).
//   2. row_stats_kernel: one block per row combines the row's chunks in chunk order (Chan et al.):
//      mean = sum S_c / N, M2 = sum (M2_c + n_c (m_c - mean)^2), and for the backward
//      sum g*w*(x - mean) = sum (C_c + (m_c - mean) A_c). It writes mean, rstd = 1/sqrt(M2/N + eps)
//      (biased variance) and, for the backward, mean(g*w) and mean(g*w*xhat).
//   3. One thread per column j, looping over the rows in order (so weight and bias are read once):
//      forward  y = (x - mean) * rstd * w + b;
//      backward grad_x = rstd * (g*w - mean(g*w) - xhat * mean(g*w*xhat)) with
//               xhat = (x - mean) * rstd, grad_weight[j] = sum_b g*xhat, grad_bias[j] = sum_b g.
// Arithmetic is fp64 on the fp32 data (results rounded to fp32 once). Why: for tiny rows the
// backward cancels catastrophically (N = 2 gives grad_x = rstd (g1 w1 - g2 w2) / 2 * eps / (var +
// eps), a 1e-5 remnant of its terms) and fp32 cannot resolve that against the float64 reference;
// and fp64 squares of finite fp32 values cannot overflow, so no rescale pass is needed for huge x.
// The passes stay memory-bound (a few fp64 operations per 4-byte element).
// Scratch (chunk and row statistics, 32 bytes per chunk) comes from cudaMallocAsync on the stream.
//
// The forward's fast path (rows of kResidentMinCols to about 7.6M elements; the default is 16 rows
// of 4,194,304): one cooperative kernel, one block of 1024 threads per SM, each holding a
// contiguous segment of the current row in shared memory (127 KB at the default size). Per row:
// each block loads its segment from x (float4 when aligned) and writes its fp64 sum and M2
// (two-pass over shared memory) to scratch; a grid-wide barrier; each block's first warp combines
// all segments' statistics in segment order (Chan, as above: the same order in every block), and
// the block normalizes its segment from shared memory. x is read once and y written once
// (537 MB at the default size: 0.127 ms at 4.2 TB/s, against the three passes' 805 MB); one
// grid barrier per row. Expected: about 0.17-0.2 ms (the three-pass path took 0.317 ms, the
// compiled baseline 0.336 ms in run 8). When the device cannot co-schedule the grid (no
// cooperative launch, too little shared memory) or the row is outside that range, the three
// passes run instead. Registers (nvcc 13.0, sm_90): 64 / 56 (resident kernel, 16- / 4-byte
// accesses), no spills.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "row_reduction.cuh"

namespace {

using rkt::cuda_kernels::block_sum_f64;
using rkt::cuda_kernels::row_launch_config;
using rkt::cuda_kernels::RowLaunch;
using rkt::cuda_kernels::warp_sum_f64;

constexpr double kEps = 1e-5;
constexpr int kChunkThreads = 256;                              // [threads per chunk block]
constexpr int kChunkItems = 16;                                 // [elements per thread]
constexpr std::int64_t kChunk = kChunkThreads * kChunkItems;    // [elements per chunk]
constexpr int kColumnThreads = 256;                             // [threads per column block]
constexpr std::int64_t kMaxGridBlocks = std::int64_t{1} << 20;  // grid-stride beyond this

// Statistics of one chunk of one row (scratch layout: [row][chunk]).
struct ChunkStats {
  double sum;        // sum x
  double m2;         // sum (x - m_c)^2, m_c = sum / n_c
  double sum_gw;     // sum g*w (backward only)
  double sum_gw_dx;  // sum g*w*(x - m_c) (backward only)
};

// Statistics of one row (scratch layout: [row]).
struct RowStats {
  double mean;
  double rstd;          // 1 / sqrt(biased variance + eps)
  double mean_gw;       // mean(g*w) (backward only)
  double mean_gw_xhat;  // mean(g*w*xhat) (backward only)
};

// Elements of the chunk that starts at `begin` in a row of `cols`.
__device__ __forceinline__ std::int64_t chunk_length(std::int64_t begin, std::int64_t cols) {
  return cols - begin < kChunk ? cols - begin : kChunk;
}

// Pass 1. Block `task` takes chunk task / rows of row task % rows: consecutive blocks read the same
// chunk of w (backward) for different rows, so it is served from L2. g and w are unused (may be
// null) in the forward.
template <bool kBackward>
__global__ void __launch_bounds__(kChunkThreads)
    chunk_stats_kernel(const float* __restrict__ x, const float* __restrict__ w,
                       const float* __restrict__ g, ChunkStats* __restrict__ chunk_stats,
                       std::int64_t rows, std::int64_t cols, std::int64_t chunks) {
  const std::int64_t tasks = rows * chunks;
  for (std::int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
    const std::int64_t row = task % rows;
    const std::int64_t chunk = task / rows;
    const std::int64_t begin = chunk * kChunk;
    const int n = static_cast<int>(chunk_length(begin, cols));  // elements in this chunk
    const float* xc = x + row * cols + begin;

    // Element i * kChunkThreads + threadIdx.x of the chunk: coalesced loads, all issued up front.
    float xv[kChunkItems];
    float gv[kChunkItems];
    float wv[kChunkItems];
#pragma unroll
    for (int i = 0; i < kChunkItems; ++i) {
      const int e = i * kChunkThreads + static_cast<int>(threadIdx.x);
      const bool in = e < n;
      xv[i] = in ? xc[e] : 0.0f;
      if constexpr (kBackward) {
        gv[i] = in ? g[row * cols + begin + e] : 0.0f;
        wv[i] = in ? w[begin + e] : 0.0f;
      }
    }

    double sum[1] = {0.0};
#pragma unroll
    for (int i = 0; i < kChunkItems; ++i) sum[0] += static_cast<double>(xv[i]);
    block_sum_f64(sum);
    const double mean_c = sum[0] / static_cast<double>(n);

    constexpr int kSums = kBackward ? 3 : 1;
    double sums[kSums] = {};  // m2, then sum_gw and sum_gw_dx
#pragma unroll
    for (int i = 0; i < kChunkItems; ++i) {
      if (i * kChunkThreads + static_cast<int>(threadIdx.x) < n) {
        const double d = static_cast<double>(xv[i]) - mean_c;
        sums[0] = fma(d, d, sums[0]);
        if constexpr (kBackward) {
          const double gw = static_cast<double>(gv[i]) * static_cast<double>(wv[i]);  // exact
          sums[1] += gw;
          sums[2] = fma(gw, d, sums[2]);
        }
      }
    }
    block_sum_f64(sums);

    if (threadIdx.x == 0) {
      ChunkStats stats{sum[0], sums[0], 0.0, 0.0};
      if constexpr (kBackward) {
        stats.sum_gw = sums[1];
        stats.sum_gw_dx = sums[2];
      }
      chunk_stats[row * chunks + chunk] = stats;
    }
  }
}

// Pass 2: one block per row combines its chunks.
template <bool kBackward>
__global__ void row_stats_kernel(const ChunkStats* __restrict__ chunk_stats,
                                 RowStats* __restrict__ row_stats, std::int64_t rows,
                                 std::int64_t cols, std::int64_t chunks) {
  const double inv_cols = 1.0 / static_cast<double>(cols);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const ChunkStats* cs = chunk_stats + row * chunks;

    double total[1] = {0.0};
    for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x) total[0] += cs[c].sum;
    block_sum_f64(total);
    const double mean = total[0] * inv_cols;

    constexpr int kSums = kBackward ? 3 : 1;
    double sums[kSums] = {};  // M2, then sum g*w and sum g*w*(x - mean)
    for (std::int64_t c = threadIdx.x; c < chunks; c += blockDim.x) {
      const double n_c = static_cast<double>(chunk_length(c * kChunk, cols));
      const double shift = cs[c].sum / n_c - mean;  // m_c - mean
      sums[0] += cs[c].m2 + n_c * shift * shift;
      if constexpr (kBackward) {
        sums[1] += cs[c].sum_gw;
        sums[2] += cs[c].sum_gw_dx + shift * cs[c].sum_gw;
      }
    }
    block_sum_f64(sums);

    if (threadIdx.x == 0) {
      const double rstd = 1.0 / sqrt(sums[0] * inv_cols + kEps);
      RowStats stats{mean, rstd, 0.0, 0.0};
      if constexpr (kBackward) {
        stats.mean_gw = sums[1] * inv_cols;
        stats.mean_gw_xhat = rstd * sums[2] * inv_cols;
      }
      row_stats[row] = stats;
    }
  }
}

// Pass 3 (forward): y = (x - mean) * rstd * w + b.
__global__ void layernorm_apply_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ b,
                                       const RowStats* __restrict__ row_stats,
                                       float* __restrict__ y, std::int64_t rows,
                                       std::int64_t cols) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < cols;
       j += stride) {
    const double wj = w[j];
    const double bj = b[j];
#pragma unroll 4
    for (std::int64_t row = 0; row < rows; ++row) {
      const double mean = row_stats[row].mean;
      const double rstd = row_stats[row].rstd;
      const std::int64_t k = row * cols + j;
      y[k] = static_cast<float>(fma((static_cast<double>(x[k]) - mean) * rstd, wj, bj));
    }
  }
}

// Pass 3 (backward): grad_x, and the column sums grad_weight and grad_bias over the rows (in
// row order). With rows == 0 it writes zero grad_weight and grad_bias.
__global__ void layernorm_backward_apply_kernel(
    const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ g,
    const RowStats* __restrict__ row_stats, float* __restrict__ grad_x, float* __restrict__ grad_w,
    float* __restrict__ grad_b, std::int64_t rows, std::int64_t cols) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < cols;
       j += stride) {
    const double wj = w[j];
    double sum_g_xhat = 0.0;
    double sum_g = 0.0;
#pragma unroll 4
    for (std::int64_t row = 0; row < rows; ++row) {
      const RowStats s = row_stats[row];
      const std::int64_t k = row * cols + j;
      const double xhat = (static_cast<double>(x[k]) - s.mean) * s.rstd;
      const double gk = g[k];
      grad_x[k] = static_cast<float>(s.rstd * (gk * wj - s.mean_gw - xhat * s.mean_gw_xhat));
      sum_g_xhat = fma(gk, xhat, sum_g_xhat);
      sum_g += gk;
    }
    grad_w[j] = static_cast<float>(sum_g_xhat);
    grad_b[j] = static_cast<float>(sum_g);
  }
}

// ---- Forward, resident rows (one cooperative kernel) ----------------------------------------

constexpr int kResidentThreads = 1024;  // [threads per block], one block/SM
constexpr std::int64_t kResidentMinCols = std::int64_t{1} << 16;  // shorter rows: three passes
constexpr std::size_t kResidentStaticShared = 4096;  // [bytes] allowance for static shared memory

// Statistics of one block's segment of one row (scratch layout: [row][block]).
struct SegmentStats {
  double sum;    // sum x
  double m2;     // sum (x - m_s)^2, m_s = sum / count
  double count;  // elements in the segment (0 for blocks past the row's end)
  double unused;
};

// Block b owns columns [b * segment, min((b + 1) * segment, cols)) of every row, held in dynamic
// shared memory. kVec: 16-byte accesses (cols and segment multiples of 4, pointers aligned).
template <bool kVec>
__global__ void __launch_bounds__(kResidentThreads, 1)
    layernorm_resident_kernel(const float* __restrict__ x, const float* __restrict__ w,
                              const float* __restrict__ b, float* __restrict__ y,
                              SegmentStats* __restrict__ partial, std::int64_t rows,
                              std::int64_t cols, std::int64_t segment) {
  extern __shared__ float4 resident_raw[];
  float* seg = reinterpret_cast<float*>(resident_raw);
  __shared__ double row_mean_rstd[2];
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * segment;
  const int n = static_cast<int>(begin < cols ? min(segment, cols - begin) : 0);
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  const int blocks = static_cast<int>(gridDim.x);

  for (std::int64_t row = 0; row < rows; ++row) {
    const float* xs = x + row * cols + begin;
    // Load the segment and sum it.
    double sum[1] = {0.0};
    if constexpr (kVec) {
      const float4* xs4 = reinterpret_cast<const float4*>(xs);
#pragma unroll 4
      for (int i = tid; i < n / 4; i += threads) {
        const float4 q = __ldg(xs4 + i);
        resident_raw[i] = q;
        sum[0] += (static_cast<double>(q.x) + static_cast<double>(q.y)) +
                  (static_cast<double>(q.z) + static_cast<double>(q.w));
      }
    } else {
#pragma unroll 4
      for (int i = tid; i < n; i += threads) {
        const float v = __ldg(xs + i);
        seg[i] = v;
        sum[0] += static_cast<double>(v);
      }
    }
    block_sum_f64(sum);  // also orders the shared-memory stores before the reads below
    const double mean_s = n > 0 ? sum[0] / static_cast<double>(n) : 0.0;
    double m2[1] = {0.0};
    for (int i = tid; i < n; i += threads) {
      const double d = static_cast<double>(seg[i]) - mean_s;
      m2[0] = fma(d, d, m2[0]);
    }
    block_sum_f64(m2);
    if (tid == 0) {
      partial[row * blocks + blockIdx.x] = SegmentStats{sum[0], m2[0], static_cast<double>(n), 0.0};
    }
    grid.sync();  // every segment's statistics of this row are written

    // The row's mean and rstd from all segments, in segment order (the same in every block).
    if (tid < 32) {
      const SegmentStats* ps = partial + row * blocks;
      double total = 0.0;
      for (int p = tid; p < blocks; p += 32) total += ps[p].sum;
      const double mean = warp_sum_f64(total) / static_cast<double>(cols);
      double m2_total = 0.0;
      for (int p = tid; p < blocks; p += 32) {
        if (ps[p].count > 0.0) {
          const double shift = ps[p].sum / ps[p].count - mean;
          m2_total += ps[p].m2 + ps[p].count * shift * shift;
        }
      }
      m2_total = warp_sum_f64(m2_total);
      if (tid == 0) {
        row_mean_rstd[0] = mean;
        row_mean_rstd[1] = 1.0 / sqrt(m2_total / static_cast<double>(cols) + kEps);
      }
    }
    __syncthreads();
    const double mean = row_mean_rstd[0];
    const double rstd = row_mean_rstd[1];

    // Normalize the segment from shared memory.
    float* ys = y + row * cols + begin;
    const float* ws = w + begin;
    const float* bs = b + begin;
    if constexpr (kVec) {
      for (int i = tid; i < n / 4; i += threads) {
        const float4 v = resident_raw[i];
        const float4 wv = __ldg(reinterpret_cast<const float4*>(ws) + i);
        const float4 bv = __ldg(reinterpret_cast<const float4*>(bs) + i);
        float4 out;
        out.x = static_cast<float>(fma((static_cast<double>(v.x) - mean) * rstd,
                                       static_cast<double>(wv.x), static_cast<double>(bv.x)));
        out.y = static_cast<float>(fma((static_cast<double>(v.y) - mean) * rstd,
                                       static_cast<double>(wv.y), static_cast<double>(bv.y)));
        out.z = static_cast<float>(fma((static_cast<double>(v.z) - mean) * rstd,
                                       static_cast<double>(wv.z), static_cast<double>(bv.z)));
        out.w = static_cast<float>(fma((static_cast<double>(v.w) - mean) * rstd,
                                       static_cast<double>(wv.w), static_cast<double>(bv.w)));
        reinterpret_cast<float4*>(ys)[i] = out;
      }
    } else {
      for (int i = tid; i < n; i += threads) {
        ys[i] = static_cast<float>(fma((static_cast<double>(seg[i]) - mean) * rstd,
                                       static_cast<double>(ws[i]), static_cast<double>(bs[i])));
      }
    }
    __syncthreads();  // the segment and row_mean_rstd are reused by the next row
  }
}

// Runs the resident forward if the device can hold the grid; returns false (having launched
// nothing) when it cannot, so that the caller runs the three passes.
bool try_layernorm_resident(const float* x, const float* w, const float* b, float* y,
                            std::int64_t rows, std::int64_t cols, cudaStream_t stream) {
  if (cols < kResidentMinCols) return false;
  int device = 0;
  RKT_CUDA_CHECK(cudaGetDevice(&device));
  int cooperative = 0;
  int multiprocessors = 0;
  int max_shared = 0;
  RKT_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  RKT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  RKT_CUDA_CHECK(
      cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (cooperative == 0 || multiprocessors <= 0) return false;
  const std::int64_t blocks = multiprocessors;  // one per SM: the grid must be co-resident
  const std::int64_t segment = ((cols + blocks - 1) / blocks + 3) / 4 * 4;
  const std::size_t shared = static_cast<std::size_t>(segment) * sizeof(float);
  if (shared + kResidentStaticShared > static_cast<std::size_t>(max_shared)) return false;

  const bool vec = cols % 4 == 0 && rkt::cuda_kernels::is_aligned16(x) &&
                   rkt::cuda_kernels::is_aligned16(w) && rkt::cuda_kernels::is_aligned16(b) &&
                   rkt::cuda_kernels::is_aligned16(y);
  const void* kernel = vec ? reinterpret_cast<const void*>(layernorm_resident_kernel<true>)
                           : reinterpret_cast<const void*>(layernorm_resident_kernel<false>);
  RKT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(shared)));
  int per_multiprocessor = 0;
  RKT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                               kResidentThreads, shared));
  if (per_multiprocessor < 1) return false;

  SegmentStats* partial = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&partial),
                                 static_cast<std::size_t>(rows * blocks) * sizeof(SegmentStats),
                                 stream));
  void* args[] = {&x, &w, &b, &y, &partial, &rows, &cols, const_cast<std::int64_t*>(&segment)};
  const cudaError_t status = cudaLaunchCooperativeKernel(
      kernel, dim3(static_cast<unsigned>(blocks)), dim3(kResidentThreads), args, shared, stream);
  const cudaError_t free_status = cudaFreeAsync(partial, stream);
  RKT_CUDA_CHECK(free_status);
  if (status == cudaErrorCooperativeLaunchTooLarge) {  // e.g. SMs taken by another context
    (void)cudaGetLastError();                          // not sticky: clear it, run three passes
    return false;
  }
  RKT_CUDA_CHECK(status);
  return true;
}

unsigned grid_blocks(std::int64_t work_items, std::int64_t per_block) {
  return static_cast<unsigned>(std::min((work_items + per_block - 1) / per_block, kMaxGridBlocks));
}

// Launches passes 1 and 2 into `chunk_stats` / `row_stats`; returns the first launch error.
template <bool kBackward>
cudaError_t launch_statistics(const float* x, const float* w, const float* g,
                              ChunkStats* chunk_stats, RowStats* row_stats, std::int64_t rows,
                              std::int64_t cols, std::int64_t chunks, cudaStream_t stream) {
  chunk_stats_kernel<kBackward><<<grid_blocks(rows * chunks, 1), kChunkThreads, 0, stream>>>(
      x, w, g, chunk_stats, rows, cols, chunks);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  const RowLaunch launch = row_launch_config(rows, chunks);
  row_stats_kernel<kBackward>
      <<<launch.blocks, launch.threads, 0, stream>>>(chunk_stats, row_stats, rows, cols, chunks);
  return cudaGetLastError();
}

// Scratch for passes 1-2 of a [rows, cols] problem: chunk statistics, then row statistics.
struct Scratch {
  ChunkStats* chunk_stats = nullptr;
  RowStats* row_stats = nullptr;
  void* base = nullptr;
};

Scratch allocate_scratch(std::int64_t rows, std::int64_t chunks, cudaStream_t stream) {
  Scratch scratch;
  const std::size_t chunk_bytes = static_cast<std::size_t>(rows * chunks) * sizeof(ChunkStats);
  const std::size_t row_bytes = static_cast<std::size_t>(rows) * sizeof(RowStats);
  RKT_CUDA_CHECK(cudaMallocAsync(&scratch.base, chunk_bytes + row_bytes, stream));
  scratch.chunk_stats = static_cast<ChunkStats*>(scratch.base);
  scratch.row_stats = reinterpret_cast<RowStats*>(static_cast<char*>(scratch.base) + chunk_bytes);
  return scratch;
}

void rkb_layernorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& bias = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t cols = weight.numel();  // F * D1 * D2
  if (cols == 0) return;
  const std::int64_t rows = x.numel() / cols;  // B
  if (rows == 0) return;
  if (try_layernorm_resident(x.data_as<const float>(), weight.data_as<const float>(),
                             bias.data_as<const float>(), y.data_as<float>(), rows, cols, stream)) {
    return;
  }
  const std::int64_t chunks = (cols + kChunk - 1) / kChunk;

  const Scratch scratch = allocate_scratch(rows, chunks, stream);
  cudaError_t status =
      launch_statistics<false>(x.data_as<const float>(), nullptr, nullptr, scratch.chunk_stats,
                               scratch.row_stats, rows, cols, chunks, stream);
  if (status == cudaSuccess) {
    layernorm_apply_kernel<<<grid_blocks(cols, kColumnThreads), kColumnThreads, 0, stream>>>(
        x.data_as<const float>(), weight.data_as<const float>(), bias.data_as<const float>(),
        scratch.row_stats, y.data_as<float>(), rows, cols);
    status = cudaGetLastError();
  }
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = cudaFreeAsync(scratch.base, stream);
  RKT_CUDA_CHECK(status);
  RKT_CUDA_CHECK(free_status);
}

// Inputs: x, weight, bias, grad_y. Outputs: grad_x, grad_weight, grad_bias.
void rkb_layernorm_backward_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weight = call.input(1);
  const rkt::TensorView& grad_y = call.input(3);
  const rkt::TensorView& grad_x = call.output(0);
  const rkt::TensorView& grad_weight = call.output(1);
  const rkt::TensorView& grad_bias = call.output(2);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t cols = weight.numel();
  if (cols == 0) return;
  const std::int64_t rows = x.numel() / cols;
  const std::int64_t chunks = (cols + kChunk - 1) / kChunk;

  Scratch scratch;  // stays empty for rows == 0: pass 3 then only zeroes grad_weight, grad_bias
  cudaError_t status = cudaSuccess;
  if (rows > 0) {
    scratch = allocate_scratch(rows, chunks, stream);
    status = launch_statistics<true>(x.data_as<const float>(), weight.data_as<const float>(),
                                     grad_y.data_as<const float>(), scratch.chunk_stats,
                                     scratch.row_stats, rows, cols, chunks, stream);
  }
  if (status == cudaSuccess) {
    layernorm_backward_apply_kernel<<<grid_blocks(cols, kColumnThreads), kColumnThreads, 0,
                                      stream>>>(
        x.data_as<const float>(), weight.data_as<const float>(), grad_y.data_as<const float>(),
        scratch.row_stats, grad_x.data_as<float>(), grad_weight.data_as<float>(),
        grad_bias.data_as<float>(), rows, cols);
    status = cudaGetLastError();
  }
  const cudaError_t free_status =
      scratch.base != nullptr ? cudaFreeAsync(scratch.base, stream) : cudaSuccess;
  RKT_CUDA_CHECK(status);
  RKT_CUDA_CHECK(free_status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_layernorm, cuda, rkb_layernorm_cuda)
    .device(rkt::Device::cuda)
    .describe(
        "Rows resident in shared memory across one block per SM (cooperative kernel): fp64 "
        "segment stats, one grid barrier per row, normalize from shared memory; three-pass "
        "fallback");
ROBUST_KERNEL_TEST(rkb_layernorm_backward, cuda, rkb_layernorm_backward_cuda)
    .device(rkt::Device::cuda)
    .describe(
        "Per-chunk fp64 stats and g*w sums combined per row, then one column-parallel pass "
        "for grad_x, grad_weight and grad_bias (fixed-order sums over the samples)");
