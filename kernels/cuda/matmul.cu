// matmul: C = A @ B with 64x64 output tiles per 256-thread block; A and B are staged through
// shared memory in 16-wide K slices (zero-filled at the edges), and each thread accumulates a 4x4
// register block of C with fp32 FMAs. Tiles beyond the grid's y limit are covered by a stride loop.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kBM = 64;  // rows of C per block
constexpr int kBN = 64;  // columns of C per block
constexpr int kBK = 16;  // K slice staged per step
constexpr int kThreadsX = 16;
constexpr int kThreadsY = 16;
constexpr int kThreads = kThreadsX * kThreadsY;
constexpr int kTM = kBM / kThreadsY;  // 4 rows per thread
constexpr int kTN = kBN / kThreadsX;  // 4 columns per thread
constexpr std::int64_t kMaxGridY = 65535;

__global__ void __launch_bounds__(kThreads)
    matmul_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b,
                        float* __restrict__ c, std::int64_t m, std::int64_t n, std::int64_t k) {
  __shared__ float a_tile[kBK][kBM + 1];  // transposed: a_tile[kk][row]; +1 limits bank conflicts
  __shared__ float b_tile[kBK][kBN];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = ty * kThreadsX + tx;
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.x) * kBN;
  const std::int64_t row_tiles = (m + kBM - 1) / kBM;

  for (std::int64_t tile_row = blockIdx.y; tile_row < row_tiles; tile_row += gridDim.y) {
    const std::int64_t row0 = tile_row * kBM;
    float acc[kTM][kTN];
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
      for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;

    for (std::int64_t k0 = 0; k0 < k; k0 += kBK) {
      // Stage A[row0:row0+64, k0:k0+16] and B[k0:k0+16, col0:col0+64], zero outside the matrices.
#pragma unroll
      for (int l = 0; l < (kBM * kBK) / kThreads; ++l) {
        const int idx = tid + l * kThreads;
        const int r = idx / kBK;
        const int kk = idx % kBK;
        const std::int64_t gr = row0 + r;
        const std::int64_t gk = k0 + kk;
        a_tile[kk][r] = (gr < m && gk < k) ? a[gr * k + gk] : 0.0f;
      }
#pragma unroll
      for (int l = 0; l < (kBK * kBN) / kThreads; ++l) {
        const int idx = tid + l * kThreads;
        const int kk = idx / kBN;
        const int cc = idx % kBN;
        const std::int64_t gk = k0 + kk;
        const std::int64_t gc = col0 + cc;
        b_tile[kk][cc] = (gk < k && gc < n) ? b[gk * n + gc] : 0.0f;
      }
      __syncthreads();

#pragma unroll
      for (int kk = 0; kk < kBK; ++kk) {
        float av[kTM];
        float bv[kTN];
#pragma unroll
        for (int i = 0; i < kTM; ++i) av[i] = a_tile[kk][ty + i * kThreadsY];
#pragma unroll
        for (int j = 0; j < kTN; ++j) bv[j] = b_tile[kk][tx + j * kThreadsX];
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
          for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < kTM; ++i) {
      const std::int64_t gr = row0 + ty + i * kThreadsY;
      if (gr >= m) continue;
#pragma unroll
      for (int j = 0; j < kTN; ++j) {
        const std::int64_t gc = col0 + tx + j * kThreadsX;
        if (gc < n) c[gr * n + gc] = acc[i][j];
      }
    }
  }
}

void matmul_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& a = call.input(0);
  const rkt::TensorView& b = call.input(1);
  const rkt::TensorView& c = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t m = a.size(0);
  const std::int64_t k = a.size(1);
  const std::int64_t n = b.size(1);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    RKT_CUDA_CHECK(cudaMemsetAsync(c.data, 0, m * n * sizeof(float), stream));
    return;
  }
  const std::int64_t col_tiles = (n + kBN - 1) / kBN;
  const std::int64_t row_tiles = (m + kBM - 1) / kBM;
  const dim3 grid(static_cast<unsigned>(col_tiles),
                  static_cast<unsigned>(std::min(row_tiles, kMaxGridY)));
  const dim3 block(kThreadsX, kThreadsY);
  matmul_tiled_kernel<<<grid, block, 0, stream>>>(
      a.data_as<const float>(), b.data_as<const float>(), c.data_as<float>(), m, n, k);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(matmul, cuda_tiled, matmul_cuda)
    .describe("64x64 shared-memory tiles, BK=16, 4x4 register block per thread, fp32 FMA");
