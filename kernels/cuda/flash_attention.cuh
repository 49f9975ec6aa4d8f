// flash_attention.cuh: a flash-style attention forward for bf16 / fp16, o = softmax(q k^T * scale
// [+ causal mask]) v, on the tensor cores (mma.sync.m16n8k16, fp32 accumulators). The kernel and
// its launch function; flash_attention.cu registers it, and tests/kernel_emulation/ runs it on
// the CPU (RKT_CUDA_EMULATION; the launch function is left out there).
//
// Layouts (the attention tasks' contract): q, o [B, H, S, D]; k, v [B, G, S, D], contiguous;
// query head h reads kv head h / (H / G); scale 1 / sqrt(D); causal: query i sees key j <= i.
//
// Design (FlashAttention-2's forward on mma.sync):
//   - one block of 4 warps per (batch x head, 128 queries); each warp owns 32 query rows as two
//     m16 tiles (kM = 2), so every K and V fragment read from shared memory feeds two MMAs; the
//     warp's Q fragments are read from the staged Q tile at each use (kM = 1, 64-query blocks,
//     keeps them in registers instead; measured slower, see below);
//   - K and V stream through shared memory in tiles of 64 keys, double-buffered with cp.async
//     (16-byte copies, zero-filled past S) so that tile j + 1 loads while tile j is computed;
//     rows are padded to D + 8 elements, which makes every ldmatrix conflict-free;
//   - S = Q K^T: plain ldmatrix of K (n-major, as mma's B wants it);
//   - masking only on the tiles that need it: keys >= S (a tail tile) and, causal, the diagonal
//     tiles; causal blocks stop at their last diagonal tile, a warp skips a tile that lies wholly
//     past its queries, and the grid runs the longest (last) query tiles first;
//   - online softmax in fp32, in base 2 (scale * log2 e folded into one multiply): the running
//     row max m and row sum l, the accumulator rescaled by exp2(m_old - m_new) when the max grows;
//     a row with no visible key yet keeps max -inf and contributes nothing (no inf - inf);
//   - P is rounded to the input format to feed the second MMA (as the tensor cores need), and l
//     sums the rounded P, so the normalised weights sum to one exactly as used;
//   - O += P V: P's accumulator fragments are the next MMA's A fragments directly (no shared
//     memory), V by transposed ldmatrix; O is 16 kM x D fp32 per warp;
//   - epilogue: O / l rounded to the format once, staged through the warp's own Q rows in shared
//     memory, then written with 16-byte stores (coalesced).
// When q, k, v or o is not 16-byte aligned (the misaligned-pointer case), the same kernel
// stages tiles with 2-byte loads and writes 2-byte stores instead (kAligned = false).
//
// Work: 4 B H S^2 D flops non-causal (two GEMMs), about half of that causal. Traffic: q, k, v
// read and o written once per block row: 2 (2 B H S D + 2 B G S D) bytes, plus K/V re-reads per
// query tile from L2. At S = 4096, D = 128 it is compute-bound (about 260 flops per byte of HBM).
// Measured on the H200 (tests/kernel_gpu_check, bf16, CUDA events): B 4, H 32, S 4096, D 128:
// 3.7-3.8 ms non-causal (290 TFLOP/s, 37% of the 790 TFLOP/s bf16 peak), 1.94 ms causal (283,
// 36%); with kM = 1: 4.5 and 2.2 ms. At the task's default B 4, H 16, G 4, S 2048, D 64: 0.25 ms
// (273 TFLOP/s, 35%) non-causal, 0.155 ms causal (220, 28%). PyTorch's SDPA (flash backend,
// wgmma) ran 1.6 ms and 0.91 ms at the first shape (680 and 600 TFLOP/s): about 2.2x faster.
// What limits it: mma.sync issues at well under wgmma's rate on Hopper, every K/V fragment goes
// through ldmatrix (shared-memory bandwidth), and the softmax's exp2, max and rescales sit between
// the two GEMMs on the same warps (no warp specialisation or ping-pong as in FlashAttention-3).
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstdint>

#include "low_precision_mma.cuh"

namespace rkt::cuda_kernels::flash {

namespace lp = rkt::cuda_kernels::low_precision;

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kBlockK = 64;  // keys per K/V tile
constexpr int kPad = 8;      // [elements] row padding: conflict-free ldmatrix
constexpr float kLog2e = 1.4426950408889634f;

// Queries per block: kM m16 tiles (16 rows each) per warp.
template <int kM>
__host__ __device__ constexpr int block_queries() {
  return 16 * kM * kWarps;
}

struct Params {
  const std::uint16_t* q;
  const std::uint16_t* k;
  const std::uint16_t* v;
  std::uint16_t* o;
  std::int64_t batch, heads, kv_heads, seq;
  float scale_log2;  // log2(e) / sqrt(D)
};

template <int kD>
__host__ __device__ constexpr int row_stride() {
  return kD + kPad;  // [elements]
}

// The Q tile, then two K and two V stages.
template <int kD, int kM>
__host__ __device__ constexpr std::size_t shared_bytes() {
  return sizeof(std::uint16_t) * static_cast<std::size_t>(block_queries<kM>() + 4 * kBlockK) *
         row_stride<kD>();
}

// Stages rows [row0, row0 + kRows) of a [seq, kD] matrix into tile ([kRows][kD + 8]); rows at or
// past seq are zeros (a zero V row times a zero weight; a zero K row is masked anyway).
template <int kD, int kRows, bool kAligned>
__device__ __forceinline__ void load_tile(std::uint16_t* tile,
                                          const std::uint16_t* __restrict__ base, std::int64_t seq,
                                          std::int64_t row0) {
  constexpr int kLd = row_stride<kD>();
  if constexpr (kAligned) {
    constexpr int kChunksPerRow = kD / 8;  // 16-byte chunks
    constexpr int kChunks = kRows * kChunksPerRow;
    static_assert(kChunks % kThreads == 0, "whole chunks per thread");
#pragma unroll
    for (int i = 0; i < kChunks / kThreads; ++i) {
      const int chunk = static_cast<int>(threadIdx.x) + i * kThreads;
      const int r = chunk / kChunksPerRow;
      const int c = (chunk % kChunksPerRow) * 8;
      const bool valid = row0 + r < seq;
      const std::uint16_t* src = valid ? base + (row0 + r) * kD + c : base;
      lp::cp_async16(tile + r * kLd + c, src, valid);
    }
  } else {
    for (int e = static_cast<int>(threadIdx.x); e < kRows * kD; e += kThreads) {
      const int r = e / kD;
      const int c = e % kD;
      tile[r * kLd + c] = row0 + r < seq ? base[(row0 + r) * kD + c] : std::uint16_t{0};
    }
  }
}

// kM: m16 tiles per warp. kM == 1 keeps the warp's Q fragments in registers; kM == 2 reads them
// from shared memory at each use (no room for them next to 2 x 16 x D accumulators) but reuses
// every K and V fragment for two m16 tiles: 80 ldmatrix per 256 MMAs instead of 64 per 128.
template <class Format, int kD, int kM, bool kCausal, bool kAligned>
__global__ void __launch_bounds__(kThreads) flash_attention_kernel(const Params p) {
  constexpr int kBlockQ = block_queries<kM>();
  constexpr int kLd = row_stride<kD>();
  constexpr int kKVTile = kBlockK * kLd;  // [elements] one K or V stage
  constexpr int kDTiles = kD / 8;         // n8 tiles of O
  constexpr int kDSteps = kD / 16;        // k16 steps of Q K^T
  constexpr int kKeyTiles = kBlockK / 8;
  constexpr bool kQInRegisters = kM == 1;
  static_assert(kD % 16 == 0, "head dim a multiple of 16");

  extern __shared__ uint4 flash_shared_raw[];  // 16-byte aligned for cp.async and ldmatrix
  std::uint16_t* shared = reinterpret_cast<std::uint16_t*>(flash_shared_raw);
  std::uint16_t* q_tile = shared;
  std::uint16_t* k_stage = shared + kBlockQ * kLd;  // two stages
  std::uint16_t* v_stage = k_stage + 2 * kKVTile;   // two stages

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int g = lane >> 2;
  const int t = lane & 3;
  // This lane's ldmatrix row offsets: matrix i = lane / 8 covers rows +8 (i & 1), columns
  // +8 (i >> 1) (A, and transposed B); plain B (keys) takes rows +8 (i >> 1), columns +8 (i & 1).
  const int a_row = (lane & 7) + 8 * ((lane >> 3) & 1);
  const int a_col = 8 * (lane >> 4);
  const int key_row = (lane & 7) + 8 * (lane >> 4);
  const int key_col = 8 * ((lane >> 3) & 1);

  // Grid: x = batch x head, y = query tile, longest (last) tiles first (causal balance).
  const std::int64_t bh = blockIdx.x;
  const std::int64_t b = bh / p.heads;
  const std::int64_t h = bh % p.heads;
  const std::int64_t kv = h / (p.heads / p.kv_heads);
  const std::int64_t q_tiles = (p.seq + kBlockQ - 1) / kBlockQ;
  const std::int64_t q0 = (q_tiles - 1 - blockIdx.y) * kBlockQ;
  const std::uint16_t* q_base = p.q + (b * p.heads + h) * p.seq * kD;
  const std::uint16_t* k_base = p.k + (b * p.kv_heads + kv) * p.seq * kD;
  const std::uint16_t* v_base = p.v + (b * p.kv_heads + kv) * p.seq * kD;
  std::uint16_t* o_base = p.o + (b * p.heads + h) * p.seq * kD;
  const int warp_row = warp * 16 * kM;  // the warp's first row in the block's tile

  std::int64_t kv_tiles = (p.seq + kBlockK - 1) / kBlockK;
  if (kCausal) {
    // Keys beyond the block's last query are never seen.
    const std::int64_t visible = (q0 + kBlockQ - 1) / kBlockK + 1;
    kv_tiles = kv_tiles < visible ? kv_tiles : visible;
  }

  load_tile<kD, kBlockQ, kAligned>(q_tile, q_base, p.seq, q0);
  load_tile<kD, kBlockK, kAligned>(k_stage, k_base, p.seq, 0);
  load_tile<kD, kBlockK, kAligned>(v_stage, v_base, p.seq, 0);
  if (kAligned) lp::cp_async_commit();

  unsigned q_frag[kQInRegisters ? kDSteps : 1][4];
  float o_acc[kM][kDTiles][4];
#pragma unroll
  for (int m = 0; m < kM; ++m)
#pragma unroll
    for (int j = 0; j < kDTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) o_acc[m][j][r] = 0.0f;
  // Rows g and g + 8 of each m16 tile: the running max (base-2 units) and this lane's part of
  // the running sum l (the quad adds its four parts at the end).
  float row_max[kM][2];
  float row_sum[kM][2];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    row_max[m][0] = row_max[m][1] = -INFINITY;
    row_sum[m][0] = row_sum[m][1] = 0.0f;
  }

  // This lane's query rows (g and g + 8 of each m16 tile), for the causal mask.
  std::int64_t query_row[kM][2];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    query_row[m][0] = q0 + warp_row + 16 * m + g;
    query_row[m][1] = query_row[m][0] + 8;
  }

  for (std::int64_t kt = 0; kt < kv_tiles; ++kt) {
    if (kAligned) lp::cp_async_wait<0>();  // tile kt has landed (for this thread's copies)
    __syncthreads();  // ... for everyone's; and the other stage's last readers are done
    if (kt + 1 < kv_tiles) {
      const int next = static_cast<int>((kt + 1) & 1);
      load_tile<kD, kBlockK, kAligned>(k_stage + next * kKVTile, k_base, p.seq, (kt + 1) * kBlockK);
      load_tile<kD, kBlockK, kAligned>(v_stage + next * kKVTile, v_base, p.seq, (kt + 1) * kBlockK);
      if (kAligned) lp::cp_async_commit();
    }
    if constexpr (kQInRegisters) {
      if (kt == 0) {
        const std::uint16_t* row = q_tile + (warp_row + a_row) * kLd + a_col;
#pragma unroll
        for (int s = 0; s < kDSteps; ++s) lp::ldmatrix_x4<false>(q_frag[s], row + 16 * s);
      }
    }
    // Causal: a warp whose last query precedes the tile's first key has nothing to add (with
    // 128-query blocks, the first two warps on the last tile). Warp-uniform; no block barrier
    // follows before the next iteration's.
    if (kCausal && kt * kBlockK > q0 + warp_row + 16 * kM - 1) continue;
    const std::uint16_t* k_tile = k_stage + (kt & 1) * kKVTile;
    const std::uint16_t* v_tile = v_stage + (kt & 1) * kKVTile;

    // ---- S = Q K^T (16 kM x 64 per warp) ----
    float s_acc[kM][kKeyTiles][4];
#pragma unroll
    for (int m = 0; m < kM; ++m)
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r) s_acc[m][j][r] = 0.0f;
#pragma unroll
    for (int s = 0; s < kDSteps; ++s) {
      unsigned qa[kM][4];
#pragma unroll
      for (int m = 0; m < kM; ++m) {
        if constexpr (kQInRegisters) {
#pragma unroll
          for (int r = 0; r < 4; ++r) qa[m][r] = q_frag[s][r];
        } else {
          lp::ldmatrix_x4<false>(qa[m],
                                 q_tile + (warp_row + 16 * m + a_row) * kLd + 16 * s + a_col);
        }
      }
#pragma unroll
      for (int j = 0; j < kKeyTiles; j += 2) {
        // Matrices: keys (j*8 + 0..7) x d (+0, +8), keys (j*8 + 8..15) x d (+0, +8).
        unsigned kb[4];
        lp::ldmatrix_x4<false>(kb, k_tile + (j * 8 + key_row) * kLd + 16 * s + key_col);
#pragma unroll
        for (int m = 0; m < kM; ++m) {
          lp::mma_m16n8k16<Format>(s_acc[m][j], qa[m], kb[0], kb[1]);
          lp::mma_m16n8k16<Format>(s_acc[m][j + 1], qa[m], kb[2], kb[3]);
        }
      }
    }

    // ---- mask, online softmax ----
    const std::int64_t key0 = kt * kBlockK;
    const bool needs_mask = key0 + kBlockK > p.seq || (kCausal && key0 + kBlockK - 1 > q0);
    float base[kM][2];  // the max subtracted in the exponent; 0 while a row has seen no key
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < kKeyTiles; ++j) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          float x = s_acc[m][j][r] * p.scale_log2;
          if (needs_mask) {
            const std::int64_t key = key0 + j * 8 + 2 * t + (r & 1);
            if (key >= p.seq || (kCausal && key > query_row[m][r >> 1])) x = -INFINITY;
          }
          s_acc[m][j][r] = x;
          tile_max[r >> 1] = fmaxf(tile_max[r >> 1], x);
        }
      }
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        // The quad (4 lanes) shares the row.
        tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 1));
        tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 2));
        const float new_max = fmaxf(row_max[m][i], tile_max[i]);
        base[m][i] = new_max == -INFINITY ? 0.0f : new_max;
        const float alpha = exp2f(row_max[m][i] - base[m][i]);  // row_max = -inf: 0
        row_max[m][i] = new_max;
        row_sum[m][i] *= alpha;
#pragma unroll
        for (int j = 0; j < kDTiles; ++j) {
          o_acc[m][j][2 * i] *= alpha;
          o_acc[m][j][2 * i + 1] *= alpha;
        }
      }
    }

    // ---- O += P V; P's accumulators become A fragments (keys 16c .. 16c + 15) ----
#pragma unroll
    for (int c = 0; c < kKeyTiles / 2; ++c) {
      unsigned pa[kM][4];
#pragma unroll
      for (int m = 0; m < kM; ++m) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {  // key tile 2c (columns 0-7), 2c + 1 (8-15)
          const float(&sj)[4] = s_acc[m][2 * c + half];
          const unsigned top = Format::pack(exp2f(sj[0] - base[m][0]), exp2f(sj[1] - base[m][0]));
          const unsigned bottom =
              Format::pack(exp2f(sj[2] - base[m][1]), exp2f(sj[3] - base[m][1]));
          row_sum[m][0] += lp::low_half<Format>(top) + lp::high_half<Format>(top);
          row_sum[m][1] += lp::low_half<Format>(bottom) + lp::high_half<Format>(bottom);
          pa[m][2 * half] = top;         // a[0] / a[2]: row g
          pa[m][2 * half + 1] = bottom;  // a[1] / a[3]: row g + 8
        }
      }
#pragma unroll
      for (int j = 0; j < kDTiles; j += 2) {
        // Matrices: keys (16c + 0..7, 16c + 8..15) x d (j*8 ..), then the same at d (j*8 + 8 ..).
        unsigned vb[4];
        lp::ldmatrix_x4<true>(vb, v_tile + (16 * c + a_row) * kLd + j * 8 + a_col);
#pragma unroll
        for (int m = 0; m < kM; ++m) {
          lp::mma_m16n8k16<Format>(o_acc[m][j], pa[m], vb[0], vb[1]);
          lp::mma_m16n8k16<Format>(o_acc[m][j + 1], pa[m], vb[2], vb[3]);
        }
      }
    }
  }
  if (kAligned) lp::cp_async_wait<0>();

  // ---- Epilogue: O / l, rounded once, through this warp's Q rows (only this warp reads them) ----
  std::uint16_t* o_rows = q_tile + warp_row * kLd;
  __syncwarp();  // the warp's last Q reads (kM == 2) are done before the rows are overwritten
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    float inv_sum[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      float l = row_sum[m][i];
      l += lp::shuffle_xor(l, 1);
      l += lp::shuffle_xor(l, 2);
      inv_sum[i] = 1.0f / l;
    }
#pragma unroll
    for (int j = 0; j < kDTiles; ++j) {
      const int col = j * 8 + 2 * t;
      const unsigned top = Format::pack(o_acc[m][j][0] * inv_sum[0], o_acc[m][j][1] * inv_sum[0]);
      const unsigned bottom =
          Format::pack(o_acc[m][j][2] * inv_sum[1], o_acc[m][j][3] * inv_sum[1]);
      *reinterpret_cast<unsigned*>(o_rows + (16 * m + g) * kLd + col) = top;
      *reinterpret_cast<unsigned*>(o_rows + (16 * m + g + 8) * kLd + col) = bottom;
    }
  }
  __syncwarp();
  const std::int64_t row0 = q0 + warp_row;
  if constexpr (kAligned) {
    constexpr int kChunksPerRow = kD / 8;
#pragma unroll
    for (int i = 0; i < 16 * kM * kChunksPerRow / 32; ++i) {
      const int chunk = lane + 32 * i;
      const int r = chunk / kChunksPerRow;
      const int c = (chunk % kChunksPerRow) * 8;
      if (row0 + r < p.seq) {
        *reinterpret_cast<uint4*>(o_base + (row0 + r) * kD + c) =
            *reinterpret_cast<const uint4*>(o_rows + r * kLd + c);
      }
    }
  } else {
    for (int e = lane; e < 16 * kM * kD; e += 32) {
      const int r = e / kD;
      const int c = e % kD;
      if (row0 + r < p.seq) o_base[(row0 + r) * kD + c] = o_rows[r * kLd + c];
    }
  }
}

// The grid the launch uses: x = B * H blocks, y = query tiles.
template <int kM>
void grid_shape(const Params& p, std::int64_t& x, std::int64_t& y) {
  x = p.batch * p.heads;
  y = (p.seq + block_queries<kM>() - 1) / block_queries<kM>();
}

#if !defined(RKT_CUDA_EMULATION)
constexpr std::int64_t kMaxGridX = 2147483647;  // [blocks]
constexpr std::int64_t kMaxGridY = 65535;       // [blocks]
constexpr int kFlashWarpTiles = 2;              // m16 tiles per warp (see flash_attention_kernel)

// Launches the forward for p (seq > 0, heads % kv_heads == 0) on `stream` with kM m16 tiles per
// warp. Returns the launch status (cudaFuncSetAttribute's if that fails;
// cudaErrorInvalidConfiguration past the grid limits).
template <class Format, int kD, int kM, bool kCausal>
cudaError_t launch_flash_attention_tiles(const Params& p, cudaStream_t stream) {
  std::int64_t x = 0;
  std::int64_t y = 0;
  grid_shape<kM>(p, x, y);
  if (x > kMaxGridX || y > kMaxGridY) return cudaErrorInvalidConfiguration;
  constexpr std::size_t kShared = shared_bytes<kD, kM>();
  const bool aligned =
      lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) && lp::aligned16(p.o);
  const auto launch = [&](auto kernel) {
    const cudaError_t attribute = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared));
    if (attribute != cudaSuccess) return attribute;
    kernel<<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), kThreads, kShared, stream>>>(
        p);
    return cudaGetLastError();
  };
  return aligned ? launch(flash_attention_kernel<Format, kD, kM, kCausal, true>)
                 : launch(flash_attention_kernel<Format, kD, kM, kCausal, false>);
}

// The forward with the tile shape chosen for it: kFlashWarpTiles m16 tiles per warp.
template <class Format, int kD, bool kCausal>
cudaError_t launch_flash_attention(const Params& p, cudaStream_t stream) {
  return launch_flash_attention_tiles<Format, kD, kFlashWarpTiles, kCausal>(p, stream);
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::flash
