// tf32x3_gemm.cuh: a tensor-core GEMM for fp32 data, C[m, n] = sum_k A[m, k] * B[k, n], with the
// operands' loaders and the epilogue supplied by the caller (a Problem type), so that matmul,
// the linear layers (bias, ReLU), LLaMA's gated MLP (two B operands, SiLU(gate) * up) and the
// convolutions (implicit GEMM: A gathered from the image) share one main loop.
//
// Arithmetic: 3xTF32. Each fp32 operand x is split into hi = x with its low 13 mantissa bits
// cleared (exactly a TF32 value) and lo = tf32_round(x - hi) (x - hi is exact in fp32); the
// product a * b is accumulated as a_lo * b_hi + a_hi * b_lo + a_hi * b_hi with
// mma.sync.m16n8k8.tf32 (fp32 accumulation). The dropped a_lo * b_lo and the rounding of the lo
// parts are below 2^-20 of |a * b|, so the result is close to an fp32 SIMT GEMM. Why not plain
// TF32 (one mma instead of three): its per-product error (about 3e-4 relative) puts a few
// elements per hundred thousand of a 4096^3 product outside the tf32 tolerance near zero
// crossings (atol 1e-3 x rms; tools/tf32_rounding_check.py, on the CPU against float64: 16 of
// 524,288 for 512 x 4096 x 1024, 3xTF32 none), so a 1xTF32 kernel (and cuBLAS with TF32 on)
// fails the correctness cases.
// Kernels built on this header claim tf32 precision all the same (their error is far inside it),
// because the tensor cores' fp32 accumulation is not specified as IEEE round-to-nearest.
//
// Tiling: a block of 256 threads (8 warps as 2 x 4) computes a kBM x kBN tile (128 x 128, or
// 128 x 64 per B operand for two B operands), stepping K by kBK = 32 through a kStages = 3
// deep cp.async pipeline in dynamic shared memory (107-111 KB per block). With 16-byte copies
// the kernel fits 128 registers (64 accumulators, the hi/lo fragments of one k8 step, addresses),
// so two blocks share an SM (Problem::kMinBlocksPerSM = 2); the 4-byte-copy variants keep more
// addresses live (about 200-230 registers uncapped, 300+ bytes of spills at 128), so they run
// one block per SM (kMinBlocksPerSM = 1). Each warp owns 64 x (kBN / 4) of the tile:
// 4 x (kBN / 32) m16n8 accumulators of 4 floats per B operand (64 floats per thread in all).
// Operands are staged either "k-contiguous" ([rows][kBK + 4]: rows of A, or of B stored
// n-major as in linear weights [N, K]) or "rows-contiguous" ([kBK][rows + 8]: B stored [K, N],
// or the gathered convolution input); both paddings make the fragment reads conflict-free
// (bank = 4 * row + k, resp. 8 * k + row, over a warp's 8 rows x 4 k). Out-of-range rows, columns
// and k are zero-filled by the copies (cp.async with source size 0), so tails need no special
// case: any M, N, K >= 0 works. Loads are 16-byte cp.async when the Problem says its operands
// allow it (contiguous dimension % 4 == 0, 16-byte aligned base), else 4-byte cp.async.
//
// CPU emulation: tests/kernel_emulation/ compiles this header with g++ and RKT_CUDA_EMULATION
// defined, after its cuda_emulation.h, which runs a block as 256 threads and stands in for the
// five PTX wrappers below (deferred cp.async groups, the TF32 conversion, warp-collective MMAs
// with the PTX fragment layouts); the launch function is left out there.
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstdint>

namespace rkt::cuda_kernels::gemm {

constexpr int kThreads = 256;  // 8 warps
constexpr int kBM = 128;       // rows of C per block
constexpr int kBK = 32;        // k per pipeline stage
constexpr int kStages = 3;     // cp.async pipeline depth
constexpr int kWarpsM = 2;     // warp grid over the block tile
constexpr int kWarpsN = 4;
constexpr int kWarpM = kBM / kWarpsM;           // 64 rows per warp
constexpr int kMTiles = kWarpM / 16;            // m16 tiles per warp
constexpr std::int64_t kMaxGridX = 2147483647;  // [blocks] CUDA's limit of gridDim.x
constexpr std::int64_t kGroupM = 8;  // M-tiles per group of the block order (L2 reuse of B)

// ---- Shared-memory layouts of one stage of one operand --------------------------------------

// [kRows][kBK + 4]: k contiguous. Fragment reads: bank = (36 * row + k) % 32 = 4 * row + k.
template <int kRows>
struct KContiguous {
  static constexpr int kLd = kBK + 4;
  static constexpr int kFloats = kRows * kLd;
  __device__ __forceinline__ static int offset(int row, int k) { return row * kLd + k; }
};

// [kBK][kRows + 8]: rows contiguous. Fragment reads: bank = (8 * k + row) % 32.
template <int kRows>
struct RowsContiguous {
  static constexpr int kLd = kRows + 8;
  static constexpr int kFloats = kBK * kLd;
  __device__ __forceinline__ static int offset(int row, int k) { return k * kLd + row; }
};

// ---- cp.async ---------------------------------------------------------------------------------

// Copies kBytes (4 or 16) from src to the shared address dst; copies zeros instead when !valid
// (source size 0: src is not read, but must still be a valid address, so pass a base pointer).
template <int kBytes>
__device__ __forceinline__ void cp_async_zfill(float* dst, const float* src, bool valid) {
  const int src_bytes = valid ? kBytes : 0;
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async(dst, src, src_bytes, kBytes);
#else
  const unsigned dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  } else {
    static_assert(kBytes == 4, "4- or 16-byte copies");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst_shared), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  }
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async_commit();
#else
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async_wait(kPending);
#else
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// ---- Dense loaders ------------------------------------------------------------------------------

// Stages rows [row0, row0 + kRows) x k [k0, k0 + kBK) of a row-major matrix whose k is the
// contiguous dimension (A [M, K]; linear weights [N, K]) into a KContiguous<kRows> stage.
template <int kRows, int kVec>
__device__ __forceinline__ void load_k_contiguous(float* stage, const float* __restrict__ base,
                                                  std::int64_t rows, std::int64_t k_size,
                                                  std::int64_t ld, std::int64_t row0,
                                                  std::int64_t k0) {
  constexpr int kChunksPerRow = kBK / kVec;
  constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "whole chunks per thread");
#pragma unroll
  for (int i = 0; i < kChunks / kThreads; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
    const int r = chunk / kChunksPerRow;
    const int c = (chunk % kChunksPerRow) * kVec;
    const std::int64_t gr = row0 + r;
    const std::int64_t gk = k0 + c;
    const bool valid = gr < rows && gk < k_size;  // kVec == 4: k_size % 4 == 0, whole vector
    const float* src = valid ? base + gr * ld + gk : base;
    cp_async_zfill<kVec * 4>(stage + KContiguous<kRows>::offset(r, c), src, valid);
  }
}

// Stages k [k0, k0 + kBK) x columns [col0, col0 + kRows) of a row-major [K, cols] matrix
// (matmul's B) into a RowsContiguous<kRows> stage.
template <int kRows, int kVec>
__device__ __forceinline__ void load_rows_contiguous(float* stage, const float* __restrict__ base,
                                                     std::int64_t k_size, std::int64_t cols,
                                                     std::int64_t ld, std::int64_t col0,
                                                     std::int64_t k0) {
  constexpr int kChunksPerK = kRows / kVec;
  constexpr int kChunks = kBK * kChunksPerK;
  static_assert(kChunks % kThreads == 0, "whole chunks per thread");
#pragma unroll
  for (int i = 0; i < kChunks / kThreads; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
    const int kk = chunk / kChunksPerK;
    const int c = (chunk % kChunksPerK) * kVec;
    const std::int64_t gk = k0 + kk;
    const std::int64_t gc = col0 + c;
    const bool valid = gk < k_size && gc < cols;  // kVec == 4: cols % 4 == 0, whole vector
    const float* src = valid ? base + gk * ld + gc : base;
    cp_async_zfill<kVec * 4>(stage + RowsContiguous<kRows>::offset(c, kk), src, valid);
  }
}

// ---- 3xTF32 arithmetic --------------------------------------------------------------------------

// x = hi + lo: hi is x truncated to TF32 (exact), lo the remainder rounded to TF32.
__device__ __forceinline__ void split_tf32(float x, unsigned& hi, unsigned& lo) {
  hi = __float_as_uint(x) & 0xffffe000u;
  const float rest = x - __uint_as_float(hi);
#if defined(RKT_CUDA_EMULATION)
  lo = rkt_emulation::round_to_tf32(rest);
#else
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(lo) : "f"(rest));
#endif
}

// d += a * b for one m16n8k8 TF32 tile (fragments as the PTX ISA lays them out).
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2]) {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::mma_m16n8k8_tf32(d, a, b);
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// ---- The kernel ---------------------------------------------------------------------------------
//
// A Problem provides:
//   static constexpr int kBN;            columns of C per block per B operand (128 or 64)
//   static constexpr int kNumB;          B operands (1, or 2 for a gated epilogue)
//   static constexpr int kMinBlocksPerSM; 2 (registers capped at 128) or 1 (no cap)
//   using ALayout = KContiguous<kBM> or RowsContiguous<kBM>;
//   using BLayout = KContiguous<kBN> or RowsContiguous<kBN>;
//   std::int64_t m, n, k;
//   __device__ void load_a(float* stage, std::int64_t m0, std::int64_t k0) const;
//   __device__ void load_b(int operand, float* stage, std::int64_t n0, std::int64_t k0) const;
//   __device__ void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const;
// store is called once for every (row, col) of C inside [0, m) x [0, n).

template <class Problem>
__host__ __device__ constexpr int stage_floats() {
  return Problem::ALayout::kFloats + Problem::kNumB * Problem::BLayout::kFloats;
}

template <class Problem>
constexpr std::size_t shared_bytes() {
  return sizeof(float) * static_cast<std::size_t>(kStages) * stage_floats<Problem>();
}

template <class Problem>
__global__ void __launch_bounds__(kThreads, Problem::kMinBlocksPerSM)
    tf32x3_gemm_kernel(const Problem problem) {
  constexpr int kBN = Problem::kBN;
  constexpr int kNumB = Problem::kNumB;
  constexpr int kWarpN = kBN / kWarpsN;  // columns per warp per B operand
  constexpr int kNTiles = kWarpN / 8;    // n8 tiles per warp per B operand
  using ALayout = typename Problem::ALayout;
  using BLayout = typename Problem::BLayout;
  constexpr int kStageFloats = stage_floats<Problem>();

  extern __shared__ float4 shared_raw[];  // float4: 16-byte aligned for the 16-byte copies
  float* shared = reinterpret_cast<float*>(shared_raw);

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int group = lane >> 2;  // "groupID" of the PTX fragment layouts
  const int thread_in_group = lane & 3;
  const int warp_row = (warp / kWarpsN) * kWarpM;
  const int warp_col = (warp % kWarpsN) * kWarpN;

  // The block's tile, from its linear index (a 1-D grid of M-tiles x N-tiles blocks). Blocks are
  // ordered in groups of kGroupM M-tiles: the blocks resident at once share a few A row panels,
  // and each B column panel is read from memory once per group instead of once per M-tile
  // (LLaMA's 470 MB of gate and up weights would otherwise stream from memory 128 times).
  const std::int64_t m_tiles = (problem.m + kBM - 1) / kBM;
  const std::int64_t n_tiles = (problem.n + kBN - 1) / kBN;
  const std::int64_t per_group = kGroupM * n_tiles;
  const std::int64_t group_first = blockIdx.x / per_group * kGroupM;
  const std::int64_t group_rows = m_tiles - group_first < kGroupM ? m_tiles - group_first : kGroupM;
  const std::int64_t in_group = blockIdx.x % per_group;
  const std::int64_t m0 = (group_first + in_group % group_rows) * kBM;
  const std::int64_t n0 = in_group / group_rows * kBN;
  const int k_tiles = static_cast<int>((problem.k + kBK - 1) / kBK);
  {
    float acc[kNumB][kMTiles][kNTiles][4];
#pragma unroll
    for (int o = 0; o < kNumB; ++o)
#pragma unroll
      for (int i = 0; i < kMTiles; ++i)
#pragma unroll
        for (int j = 0; j < kNTiles; ++j)
#pragma unroll
          for (int r = 0; r < 4; ++r) acc[o][i][j][r] = 0.0f;

    const auto load_stage = [&](int k_tile) {
      float* stage = shared + (k_tile % kStages) * kStageFloats;
      const std::int64_t k0 = static_cast<std::int64_t>(k_tile) * kBK;
      problem.load_a(stage, m0, k0);
#pragma unroll
      for (int o = 0; o < kNumB; ++o)
        problem.load_b(o, stage + ALayout::kFloats + o * BLayout::kFloats, n0, k0);
    };

#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < k_tiles) load_stage(s);
      cp_async_commit();  // always commit, so the group count per iteration stays fixed
    }

    for (int kt = 0; kt < k_tiles; ++kt) {
      cp_async_wait<kStages - 2>();  // tile kt has landed (for this thread's copies)
      __syncthreads();               // ... for everyone's; and stage (kt - 1) is free again
      if (kt + kStages - 1 < k_tiles) load_stage(kt + kStages - 1);
      cp_async_commit();

      const float* a_stage = shared + (kt % kStages) * kStageFloats;
      const float* b_stage = a_stage + ALayout::kFloats;
      // Not unrolled: unrolled, nvcc 13.0 hoisted the fragment loads of all four k8 steps and
      // ran out of registers (255, with spills).
#pragma unroll 1
      for (int kk = 0; kk < kBK; kk += 8) {
        // B fragments of every n8 tile of every operand: b0 = B(k = t, n = g), b1 = B(t + 4, g).
        unsigned b_hi[kNumB][kNTiles][2];
        unsigned b_lo[kNumB][kNTiles][2];
#pragma unroll
        for (int o = 0; o < kNumB; ++o) {
          const float* bs = b_stage + o * BLayout::kFloats;
#pragma unroll
          for (int j = 0; j < kNTiles; ++j) {
            const int col = warp_col + j * 8 + group;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              split_tf32(bs[BLayout::offset(col, kk + thread_in_group + 4 * h)], b_hi[o][j][h],
                         b_lo[o][j][h]);
            }
          }
        }
#pragma unroll
        for (int i = 0; i < kMTiles; ++i) {
          // A fragment: a0 = A(g, t), a1 = A(g + 8, t), a2 = A(g, t + 4), a3 = A(g + 8, t + 4).
          const int row = warp_row + i * 16 + group;
          unsigned a_hi[4];
          unsigned a_lo[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            split_tf32(
                a_stage[ALayout::offset(row + 8 * (r & 1), kk + thread_in_group + 4 * (r >> 1))],
                a_hi[r], a_lo[r]);
          }
#pragma unroll
          for (int o = 0; o < kNumB; ++o) {
#pragma unroll
            for (int j = 0; j < kNTiles; ++j) {
              const unsigned bh[2] = {b_hi[o][j][0], b_hi[o][j][1]};
              const unsigned bl[2] = {b_lo[o][j][0], b_lo[o][j][1]};
              mma_tf32(acc[o][i][j], a_lo, bh);  // small terms first
              mma_tf32(acc[o][i][j], a_hi, bl);
              mma_tf32(acc[o][i][j], a_hi, bh);
            }
          }
        }
      }
    }
    cp_async_wait<0>();  // nothing may be in flight into the stages when the next tile starts

    // Epilogue: c0 = C(g, 2t), c1 = C(g, 2t + 1), c2 = C(g + 8, 2t), c3 = C(g + 8, 2t + 1).
#pragma unroll
    for (int i = 0; i < kMTiles; ++i) {
#pragma unroll
      for (int j = 0; j < kNTiles; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const std::int64_t row = m0 + warp_row + i * 16 + group + 8 * (r >> 1);
          const std::int64_t col = n0 + warp_col + j * 8 + 2 * thread_in_group + (r & 1);
          if (row < problem.m && col < problem.n) {
            float values[kNumB];
#pragma unroll
            for (int o = 0; o < kNumB; ++o) values[o] = acc[o][i][j][r];
            problem.store(row, col, values);
          }
        }
      }
    }
  }
}

#if !defined(RKT_CUDA_EMULATION)
// Launches the GEMM for `problem` on `stream` (problem.m, problem.n > 0). Returns the launch
// status (cudaFuncSetAttribute's if that fails).
template <class Problem>
cudaError_t launch_tf32x3_gemm(const Problem& problem, cudaStream_t stream) {
  constexpr std::size_t kShared = shared_bytes<Problem>();
  const cudaError_t attribute =
      cudaFuncSetAttribute(tf32x3_gemm_kernel<Problem>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kShared));
  if (attribute != cudaSuccess) return attribute;
  const std::int64_t n_tiles = (problem.n + Problem::kBN - 1) / Problem::kBN;
  const std::int64_t m_tiles = (problem.m + kBM - 1) / kBM;
  const std::int64_t tiles = n_tiles * m_tiles;  // one block per tile, a 1-D grid
  if (tiles > kMaxGridX) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(tiles));
  tf32x3_gemm_kernel<Problem><<<grid, kThreads, kShared, stream>>>(problem);
  return cudaGetLastError();
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::gemm
