// bf16_gemm.cuh: a tensor-core GEMM for bf16 / fp16 data with a fused bias + erf-GELU epilogue,
// y[m, n] = gelu(sum_k a[m, k] b[k, n] + bias[n]) for row-major a [M, K], b [K, N], bias [N],
// y [M, N]. The kernel and its launch function; matmul_bias_gelu.cu registers it, and
// tests/kernel_emulation/ runs it on the CPU (RKT_CUDA_EMULATION; no launch function there).
//
// Arithmetic: mma.sync.m16n8k16 with bf16 / fp16 inputs and fp32 accumulators; the epilogue adds
// the bias and applies GELU (0.5 x (1 + erf(x / sqrt 2))) in fp32 and rounds to the format once,
// at the store. Nothing is accumulated in the low format.
//
// Tiling: a block of 256 threads (8 warps as 2 x 4) computes a 128 x 128 tile of y, stepping K
// by kBK = 32 through a 4-deep cp.async pipeline (76 KB of dynamic shared memory; two blocks per
// SM). Each warp owns 64 x 32: 4 x 4 m16n8 accumulators (64 floats per lane). A is staged
// [128][32 + 8] (k contiguous), B [32][128 + 8] (n contiguous, straight from its row-major
// layout); the paddings make every ldmatrix conflict-free (the 8 rows of a matrix fall in 8
// distinct 16-byte bank groups). A fragments are plain ldmatrix.x4, B fragments transposed
// ldmatrix.x4 (two n8 tiles each).
// Tails: out-of-range rows, columns and k are zero-filled by the copies, so any M, N, K works.
// Copies are 16-byte cp.async when K % 8 == 0, N % 8 == 0 and a, b are 16-byte aligned;
// otherwise the same kernel stages elements with 2-byte loads (kAligned = false; slower, but it
// only serves odd shapes and the misaligned-pointer case). Blocks run in groups of kGroupM
// M-tiles so that the resident blocks share B column panels in L2.
//
// Work: 2 M N K flops (137 GFLOP at 4096^3). Traffic: 2 (M K + K N + M N) bytes plus B re-reads
// from L2. Measured on the H200 (tests/kernel_gpu_check, CUDA events): 0.474 ms at 4096^3 in
// bf16 and fp16, 290 TFLOP/s = 37% of the 790 TFLOP/s bf16 peak (8192^3: 300 TFLOP/s); eager
// PyTorch (cuBLAS with wgmma, then bias and GELU) took 0.239 ms (matmul alone 0.175 ms), about
// 2x faster. What limits it: mma.sync issues at well under wgmma's rate on Hopper, and every
// fragment is read from shared memory by ldmatrix (6 per 16 MMAs), which a wgmma kernel avoids by
// reading its operands from shared memory inside the instruction.
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstdint>

#include "low_precision_mma.cuh"

namespace rkt::cuda_kernels::bf16_gemm {

namespace lp = rkt::cuda_kernels::low_precision;

constexpr int kThreads = 256;  // 8 warps
constexpr int kBM = 128;       // rows of y per block
constexpr int kBK = 32;        // k per pipeline stage
constexpr int kWarpsN = 4;     // warp grid: 2 x 4
constexpr int kWarpM = 64;     // rows per warp
constexpr int kMTiles = kWarpM / 16;
constexpr int kLdA = kBK + 8;        // [elements] A stage row stride
constexpr std::int64_t kGroupM = 8;  // M-tiles per group of the block order (L2 reuse of B)

// The block's columns, and what follows from them: 128 columns, warps of 64 x 32, 4 stages
// (76 KB), two blocks per SM (128 registers). Measured on the H200 at 4096^3: 290 TFLOP/s; 256
// columns with warps of 64 x 64 (half the shared-memory reads per MMA, 232 registers, one block
// per SM) ran at 246 TFLOP/s, so the narrow shape is the only one launched.
template <int kColumns, int kBlocksPerSM>
struct Tiles {
  static constexpr int kBN = kColumns;               // columns of y per block
  static constexpr int kWarpN = kColumns / kWarpsN;  // columns per warp
  static constexpr int kNTiles = kWarpN / 8;
  static constexpr int kStages = 4;  // cp.async pipeline depth
  static constexpr int kMinBlocksPerSM = kBlocksPerSM;
  static constexpr int kLdB = kBN + 8;  // [elements] B stage row stride
  static constexpr int kStageElements = kBM * kLdA + kBK * kLdB;
  static constexpr std::size_t kSharedBytes =
      sizeof(std::uint16_t) * static_cast<std::size_t>(kStages) * kStageElements;
};
using BlockTiles = Tiles<128, 2>;

struct Params {
  const std::uint16_t* a;     // [m, k]
  const std::uint16_t* b;     // [k, n]
  const std::uint16_t* bias;  // [n]
  std::uint16_t* y;           // [m, n]
  std::int64_t m, n, k;
};

// The erf GELU, in fp32.
__device__ __forceinline__ float gelu(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
}

// Stages a [kBM x kBK] tile of a and a [kBK x kBN] tile of b.
template <class T, bool kAligned>
__device__ __forceinline__ void load_stage(std::uint16_t* stage, const Params& p, std::int64_t m0,
                                           std::int64_t n0, std::int64_t k0) {
  std::uint16_t* a_stage = stage;
  constexpr int kBN = T::kBN;
  constexpr int kLdB = T::kLdB;
  std::uint16_t* b_stage = stage + kBM * kLdA;
  const int tid = static_cast<int>(threadIdx.x);
  if constexpr (kAligned) {
    // A: 128 rows x 4 chunks of 8; B: 32 rows x kBN / 8 chunks. K % 8 == 0 and N % 8 == 0, so a
    // chunk is wholly inside or wholly outside.
#pragma unroll
    for (int i = 0; i < kBM * kBK / 8 / kThreads; ++i) {
      const int chunk = tid + i * kThreads;
      const int r = chunk / (kBK / 8);
      const int c = (chunk % (kBK / 8)) * 8;
      const bool valid = m0 + r < p.m && k0 + c < p.k;
      const std::uint16_t* src = valid ? p.a + (m0 + r) * p.k + k0 + c : p.a;
      lp::cp_async16(a_stage + r * kLdA + c, src, valid);
    }
#pragma unroll
    for (int i = 0; i < kBK * kBN / 8 / kThreads; ++i) {
      const int chunk = tid + i * kThreads;
      const int r = chunk / (kBN / 8);
      const int c = (chunk % (kBN / 8)) * 8;
      const bool valid = k0 + r < p.k && n0 + c < p.n;
      const std::uint16_t* src = valid ? p.b + (k0 + r) * p.n + n0 + c : p.b;
      lp::cp_async16(b_stage + r * kLdB + c, src, valid);
    }
  } else {
#pragma unroll 4
    for (int e = tid; e < kBM * kBK; e += kThreads) {
      const int r = e / kBK;
      const int c = e % kBK;
      const bool valid = m0 + r < p.m && k0 + c < p.k;
      a_stage[r * kLdA + c] = valid ? p.a[(m0 + r) * p.k + k0 + c] : std::uint16_t{0};
    }
#pragma unroll 4
    for (int e = tid; e < kBK * kBN; e += kThreads) {
      const int r = e / kBN;
      const int c = e % kBN;
      const bool valid = k0 + r < p.k && n0 + c < p.n;
      b_stage[r * kLdB + c] = valid ? p.b[(k0 + r) * p.n + n0 + c] : std::uint16_t{0};
    }
  }
}

template <class Format, class T, bool kAligned>
__global__ void __launch_bounds__(kThreads, T::kMinBlocksPerSM)
    bias_gelu_gemm_kernel(const Params p) {
  constexpr int kBN = T::kBN;
  constexpr int kWarpN = T::kWarpN;
  constexpr int kNTiles = T::kNTiles;
  constexpr int kStages = T::kStages;
  constexpr int kLdB = T::kLdB;
  constexpr int kStageElements = T::kStageElements;
  extern __shared__ uint4 gemm_shared_raw[];  // 16-byte aligned for cp.async and ldmatrix
  std::uint16_t* shared = reinterpret_cast<std::uint16_t*>(gemm_shared_raw);

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int g = lane >> 2;
  const int t = lane & 3;
  const int warp_row = (warp / kWarpsN) * kWarpM;
  const int warp_col = (warp % kWarpsN) * kWarpN;

  // The block's tile from its linear index, M-tiles grouped by kGroupM (as tf32x3_gemm.cuh).
  const std::int64_t m_tiles = (p.m + kBM - 1) / kBM;
  const std::int64_t n_tiles = (p.n + kBN - 1) / kBN;
  const std::int64_t per_group = kGroupM * n_tiles;
  const std::int64_t group_first = blockIdx.x / per_group * kGroupM;
  const std::int64_t group_rows = m_tiles - group_first < kGroupM ? m_tiles - group_first : kGroupM;
  const std::int64_t in_group = blockIdx.x % per_group;
  const std::int64_t m0 = (group_first + in_group % group_rows) * kBM;
  const std::int64_t n0 = in_group / group_rows * kBN;
  const int k_tiles = static_cast<int>((p.k + kBK - 1) / kBK);

  float acc[kMTiles][kNTiles][4];
#pragma unroll
  for (int i = 0; i < kMTiles; ++i)
#pragma unroll
    for (int j = 0; j < kNTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles)
      load_stage<T, kAligned>(shared + s * kStageElements, p, m0, n0, std::int64_t{s} * kBK);
    lp::cp_async_commit();  // always commit, so the group count per iteration stays fixed
  }

  // This lane's ldmatrix row offsets: matrix i = lane / 8 is (row + 8 (i & 1), column + 8 (i >>
  // 1)).
  const int matrix_row = (lane & 7) + 8 * ((lane >> 3) & 1);
  const int matrix_col = 8 * (lane >> 4);

  for (int kt = 0; kt < k_tiles; ++kt) {
    lp::cp_async_wait<kStages - 2>();  // tile kt has landed (for this thread's copies)
    __syncthreads();                   // ... for everyone's; and stage (kt - 1) is free again
    if (kt + kStages - 1 < k_tiles) {
      load_stage<T, kAligned>(shared + ((kt + kStages - 1) % kStages) * kStageElements, p, m0, n0,
                              std::int64_t{kt + kStages - 1} * kBK);
    }
    lp::cp_async_commit();

    const std::uint16_t* a_stage = shared + (kt % kStages) * kStageElements;
    const std::uint16_t* b_stage = a_stage + kBM * kLdA;
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 16) {
      unsigned a_frag[kMTiles][4];
#pragma unroll
      for (int i = 0; i < kMTiles; ++i) {
        lp::ldmatrix_x4<false>(a_frag[i],
                               a_stage + (warp_row + i * 16 + matrix_row) * kLdA + kk + matrix_col);
      }
      unsigned b_frag[kNTiles][2];
#pragma unroll
      for (int j = 0; j < kNTiles; j += 2) {
        unsigned r[4];
        lp::ldmatrix_x4<true>(r,
                              b_stage + (kk + matrix_row) * kLdB + warp_col + j * 8 + matrix_col);
        b_frag[j][0] = r[0];
        b_frag[j][1] = r[1];
        b_frag[j + 1][0] = r[2];
        b_frag[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < kMTiles; ++i)
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
          lp::mma_m16n8k16<Format>(acc[i][j], a_frag[i], b_frag[j][0], b_frag[j][1]);
    }
  }
  lp::cp_async_wait<0>();  // nothing may be in flight into shared memory when the block ends

  // Epilogue: c[0], c[1] = (g, 2t), (g, 2t + 1); c[2], c[3] the same at row g + 8. A pair is
  // stored as one 32-bit word when y is 4-byte aligned and N is even (then col < N implies
  // col + 1 < N, col being even).
  const bool paired = (reinterpret_cast<std::uintptr_t>(p.y) & 3u) == 0 && p.n % 2 == 0;
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) {
    const std::int64_t col = n0 + warp_col + j * 8 + 2 * t;
    const float bias0 = col < p.n ? Format::to_float(p.bias[col]) : 0.0f;
    const float bias1 = col + 1 < p.n ? Format::to_float(p.bias[col + 1]) : 0.0f;
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const std::int64_t row = m0 + warp_row + i * 16 + g + 8 * half;
        if (row >= p.m || col >= p.n) continue;
        const float v0 = gelu(acc[i][j][2 * half] + bias0);
        const float v1 = gelu(acc[i][j][2 * half + 1] + bias1);
        std::uint16_t* out = p.y + row * p.n + col;
        if (paired) {
          *reinterpret_cast<unsigned*>(out) = Format::pack(v0, v1);
        } else {
          out[0] = Format::from_float(v0);
          if (col + 1 < p.n) out[1] = Format::from_float(v1);
        }
      }
    }
  }
}

// Blocks of the 1-D grid: one per kBM x T::kBN tile of y.
template <class T>
std::int64_t grid_blocks(const Params& p) {
  return ((p.m + kBM - 1) / kBM) * ((p.n + T::kBN - 1) / T::kBN);
}

// True when the 16-byte copy path applies.
inline bool copies_aligned(const Params& p) {
  return p.k % 8 == 0 && p.n % 8 == 0 && lp::aligned16(p.a) && lp::aligned16(p.b);
}

#if !defined(RKT_CUDA_EMULATION)
constexpr std::int64_t kMaxGridX = 2147483647;  // [blocks]

// Launches y = gelu(a @ b + bias) on `stream` (p.m, p.n > 0). Returns the launch status
// (cudaFuncSetAttribute's if that fails).
template <class Format, class T>
cudaError_t launch_with_tiles(const Params& p, cudaStream_t stream) {
  const std::int64_t blocks = grid_blocks<T>(p);
  if (blocks > kMaxGridX) return cudaErrorInvalidConfiguration;
  const auto launch = [&](auto kernel) {
    const cudaError_t attribute = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(T::kSharedBytes));
    if (attribute != cudaSuccess) return attribute;
    kernel<<<static_cast<unsigned>(blocks), kThreads, T::kSharedBytes, stream>>>(p);
    return cudaGetLastError();
  };
  return copies_aligned(p) ? launch(bias_gelu_gemm_kernel<Format, T, true>)
                           : launch(bias_gelu_gemm_kernel<Format, T, false>);
}

// Launches y = gelu(a @ b + bias) on `stream` (p.m, p.n > 0). Returns the launch status
// (cudaFuncSetAttribute's if that fails).
template <class Format>
cudaError_t launch_bias_gelu_gemm(const Params& p, cudaStream_t stream) {
  return launch_with_tiles<Format, BlockTiles>(p, stream);
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::bf16_gemm
