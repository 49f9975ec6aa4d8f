// flash_attention.cuh: a flash-style attention forward for bf16 / fp16, o = softmax(q k^T * scale
// [+ causal mask]) v, on the tensor cores (mma.sync.m16n8k16, fp32 accumulators). The kernel and
// its launch function; flash_attention.cu registers it, and tests/kernel_emulation/ runs it on
// the CPU (RKT_CUDA_EMULATION; the launch function is left out there).
//
// Layouts (the attention tasks' contract): q, o [B, H, S, D]; k, v [B, G, S, D], contiguous;
// query head h reads kv head h / (H / G); scale 1 / sqrt(D); causal: query i sees key j <= i.
//
// Design (FlashAttention-2's forward on mma.sync):
//   - one block of 4 warps per (batch x head, 64 queries); each warp owns 16 query rows. The
//     block's Q tile is staged in shared memory once and each warp keeps its Q fragments in
//     registers (D / 16 x 4 registers);
//   - K and V stream through shared memory in tiles of 64 keys, double-buffered with cp.async
//     (16-byte copies, zero-filled past S) so that tile j + 1 loads while tile j is computed;
//     rows are padded to D + 8 elements, which makes every ldmatrix conflict-free;
//   - S = Q K^T: plain ldmatrix of K (n-major, as mma's B wants it); 16 x 64 fp32 per warp;
//   - masking only on the tiles that need it: keys >= S (a tail tile) and, causal, the diagonal
//     tile; causal blocks stop at their diagonal tile, and the grid runs the longest (last) query
//     tiles first;
//   - online softmax in fp32, in base 2 (scale * log2 e folded into one multiply): the running
//     row max m and row sum l, the accumulator rescaled by exp2(m_old - m_new) when the max grows;
//     a row with no visible key yet keeps max -inf and contributes nothing (no inf - inf);
//   - P is rounded to the input format to feed the second MMA (as the tensor cores need), and l
//     sums the rounded P, so the normalised weights sum to one exactly as used;
//   - O += P V: P's accumulator fragments are the next MMA's A fragments directly (no shared
//     memory), V by transposed ldmatrix; O is 16 x D fp32 per warp (D / 2 registers per lane);
//   - epilogue: O / l rounded to the format once, staged through the warp's own Q rows in shared
//     memory, then written with 16-byte stores (coalesced).
// When q, k, v or o is not 16-byte aligned (the misaligned-pointer case), the same kernel
// stages tiles with 2-byte loads and writes 2-byte stores instead (kAligned = false).
//
// Work: 4 B H S^2 D flops non-causal (two GEMMs), about half of that causal. Traffic: q, k, v
// read and o written once per block row: 2 (2 B H S D + 2 B G S D) bytes, plus K/V re-reads per
// query tile from L2. At S = 4096, D = 128 it is compute-bound (about 260 flops per byte of HBM).
// Expected: mma.sync m16n8k16 reaches at most about 60-65% of Hopper's bf16 peak (wgmma is needed
// for the rest); with the softmax between the two GEMMs, FlashAttention-2 on H100 runs at about
// 45-50% of peak, so 300-380 TFLOP/s (40-48% of 790) is this kernel's ceiling and ~35% is
// expected. LibTorch's SDPA on Hopper (flash or cuDNN backends, wgmma) is expected to be faster.
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
constexpr int kBlockQ = 16 * kWarps;  // queries per block: 16 per warp
constexpr int kBlockK = 64;           // keys per K/V tile
constexpr int kPad = 8;               // [elements] row padding: conflict-free ldmatrix
constexpr float kLog2e = 1.4426950408889634f;

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

// Q tile + two K and two V stages.
template <int kD>
__host__ __device__ constexpr std::size_t shared_bytes() {
  return sizeof(std::uint16_t) * static_cast<std::size_t>(5 * kBlockQ) * row_stride<kD>();
}

// Stages rows [row0, row0 + 64) of a [seq, kD] matrix into tile ([64][kD + 8]); rows at or past
// seq are zeros (a zero V row times a zero weight; a zero K row is masked anyway).
template <int kD, bool kAligned>
__device__ __forceinline__ void load_tile(std::uint16_t* tile, const std::uint16_t* __restrict__ base,
                                          std::int64_t seq, std::int64_t row0) {
  constexpr int kLd = row_stride<kD>();
  if constexpr (kAligned) {
    constexpr int kChunksPerRow = kD / 8;  // 16-byte chunks
    constexpr int kChunks = 64 * kChunksPerRow;
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
    for (int e = static_cast<int>(threadIdx.x); e < 64 * kD; e += kThreads) {
      const int r = e / kD;
      const int c = e % kD;
      tile[r * kLd + c] = row0 + r < seq ? base[(row0 + r) * kD + c] : std::uint16_t{0};
    }
  }
}

template <class Format, int kD, bool kCausal, bool kAligned>
__global__ void __launch_bounds__(kThreads)
    flash_attention_kernel(const Params p) {
  constexpr int kLd = row_stride<kD>();
  constexpr int kTile = kBlockQ * kLd;  // [elements] one Q, K or V tile
  constexpr int kDTiles = kD / 8;       // n8 tiles of O
  constexpr int kDSteps = kD / 16;      // k16 steps of Q K^T
  constexpr int kKeyTiles = kBlockK / 8;
  static_assert(kD % 16 == 0, "head dim a multiple of 16");

  extern __shared__ uint4 flash_shared_raw[];  // 16-byte aligned for cp.async and ldmatrix
  std::uint16_t* shared = reinterpret_cast<std::uint16_t*>(flash_shared_raw);
  std::uint16_t* q_tile = shared;
  std::uint16_t* k_stage = shared + kTile;          // two stages
  std::uint16_t* v_stage = shared + 3 * kTile;      // two stages

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int g = lane >> 2;
  const int t = lane & 3;

  // Grid: x = batch x head, y = query tile, longest (last) tiles first (causal balance).
  const std::int64_t bh = blockIdx.x;
  const std::int64_t b = bh / p.heads;
  const std::int64_t h = bh % p.heads;
  const std::int64_t kv = h / (p.heads / p.kv_heads);
  const std::int64_t q_tiles = (p.seq + kBlockQ - 1) / kBlockQ;
  const std::int64_t q_tile_index = q_tiles - 1 - blockIdx.y;
  const std::int64_t q0 = q_tile_index * kBlockQ;
  const std::uint16_t* q_base = p.q + (b * p.heads + h) * p.seq * kD;
  const std::uint16_t* k_base = p.k + (b * p.kv_heads + kv) * p.seq * kD;
  const std::uint16_t* v_base = p.v + (b * p.kv_heads + kv) * p.seq * kD;
  std::uint16_t* o_base = p.o + (b * p.heads + h) * p.seq * kD;

  std::int64_t kv_tiles = (p.seq + kBlockK - 1) / kBlockK;
  if (kCausal) {
    // Keys beyond the block's last query are never seen (kBlockQ == kBlockK).
    kv_tiles = kv_tiles < q_tile_index + 1 ? kv_tiles : q_tile_index + 1;
  }

  load_tile<kD, kAligned>(q_tile, q_base, p.seq, q0);
  load_tile<kD, kAligned>(k_stage, k_base, p.seq, 0);
  load_tile<kD, kAligned>(v_stage, v_base, p.seq, 0);
  if (kAligned) lp::cp_async_commit();

  unsigned q_frag[kDSteps][4];
  float o_acc[kDTiles][4];
#pragma unroll
  for (int j = 0; j < kDTiles; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) o_acc[j][r] = 0.0f;
  float row_max[2] = {-INFINITY, -INFINITY};  // rows g and g + 8 of the warp, in base-2 units
  float row_sum[2] = {0.0f, 0.0f};            // this lane's part of l (the quad adds at the end)

  // Query rows of this lane, for the causal mask.
  const std::int64_t query_row[2] = {q0 + warp * 16 + g, q0 + warp * 16 + g + 8};

  for (std::int64_t kt = 0; kt < kv_tiles; ++kt) {
    if (kAligned) lp::cp_async_wait<0>();  // tile kt has landed (for this thread's copies)
    __syncthreads();  // ... for everyone's; and the other stage's last readers are done
    if (kt + 1 < kv_tiles) {
      const int next = static_cast<int>((kt + 1) & 1);
      load_tile<kD, kAligned>(k_stage + next * kTile, k_base, p.seq, (kt + 1) * kBlockK);
      load_tile<kD, kAligned>(v_stage + next * kTile, v_base, p.seq, (kt + 1) * kBlockK);
      if (kAligned) lp::cp_async_commit();
    }
    if (kt == 0) {
      // A fragments of this warp's 16 Q rows: matrices (rows +0/+8) x (columns +0/+8).
      const std::uint16_t* row = q_tile + (warp * 16 + (lane & 7) + 8 * ((lane >> 3) & 1)) * kLd +
                                 8 * (lane >> 4);
#pragma unroll
      for (int s = 0; s < kDSteps; ++s) lp::ldmatrix_x4<false>(q_frag[s], row + 16 * s);
    }
    const std::uint16_t* k_tile = k_stage + (kt & 1) * kTile;
    const std::uint16_t* v_tile = v_stage + (kt & 1) * kTile;

    // ---- S = Q K^T (16 x 64 per warp) ----
    float s_acc[kKeyTiles][4];
#pragma unroll
    for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) s_acc[j][r] = 0.0f;
#pragma unroll
    for (int s = 0; s < kDSteps; ++s) {
#pragma unroll
      for (int j = 0; j < kKeyTiles; j += 2) {
        // Matrices: keys (j*8, +0..7) x d (+0, +8), keys (j*8 + 8 ..) x d (+0, +8).
        const std::uint16_t* row =
            k_tile + (j * 8 + (lane & 7) + 8 * (lane >> 4)) * kLd + 16 * s + 8 * ((lane >> 3) & 1);
        unsigned kb[4];
        lp::ldmatrix_x4<false>(kb, row);
        lp::mma_m16n8k16<Format>(s_acc[j], q_frag[s], kb[0], kb[1]);
        lp::mma_m16n8k16<Format>(s_acc[j + 1], q_frag[s], kb[2], kb[3]);
      }
    }

    // ---- mask, online softmax ----
    const std::int64_t key0 = kt * kBlockK;
    const bool needs_mask =
        key0 + kBlockK > p.seq || (kCausal && key0 + kBlockK - 1 > q0);
    float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < kKeyTiles; ++j) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        float x = s_acc[j][r] * p.scale_log2;
        if (needs_mask) {
          const std::int64_t key = key0 + j * 8 + 2 * t + (r & 1);
          if (key >= p.seq || (kCausal && key > query_row[r >> 1])) x = -INFINITY;
        }
        s_acc[j][r] = x;
        tile_max[r >> 1] = fmaxf(tile_max[r >> 1], x);
      }
    }
    float alpha[2];
    float base[2];  // the max subtracted in the exponent; 0 while the row has seen no key
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      // The quad (4 lanes) shares the row.
      tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 1));
      tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 2));
      const float new_max = fmaxf(row_max[i], tile_max[i]);
      base[i] = new_max == -INFINITY ? 0.0f : new_max;
      alpha[i] = exp2f(row_max[i] - base[i]);  // row_max = -inf: 0 (the sums are 0 anyway)
      row_max[i] = new_max;
      row_sum[i] *= alpha[i];
    }
#pragma unroll
    for (int j = 0; j < kDTiles; ++j) {
#pragma unroll
      for (int r = 0; r < 4; ++r) o_acc[j][r] *= alpha[r >> 1];
    }

    // ---- O += P V; P's accumulators become A fragments (keys 16c .. 16c + 15) ----
#pragma unroll
    for (int c = 0; c < kKeyTiles / 2; ++c) {
      unsigned pa[4];
#pragma unroll
      for (int half = 0; half < 2; ++half) {  // key tile 2c (columns 0-7), 2c + 1 (8-15)
        const float(&sj)[4] = s_acc[2 * c + half];
        const unsigned top = Format::pack(exp2f(sj[0] - base[0]), exp2f(sj[1] - base[0]));
        const unsigned bottom = Format::pack(exp2f(sj[2] - base[1]), exp2f(sj[3] - base[1]));
        row_sum[0] += lp::low_half<Format>(top) + lp::high_half<Format>(top);
        row_sum[1] += lp::low_half<Format>(bottom) + lp::high_half<Format>(bottom);
        pa[2 * half] = top;         // a[0] / a[2]: row g
        pa[2 * half + 1] = bottom;  // a[1] / a[3]: row g + 8
      }
#pragma unroll
      for (int j = 0; j < kDTiles; j += 2) {
        // Matrices: keys (16c + 0..7, 16c + 8..15) x d (j*8 ..), then the same at d (j*8 + 8 ..).
        const std::uint16_t* row =
            v_tile + (16 * c + (lane & 7) + 8 * ((lane >> 3) & 1)) * kLd + j * 8 + 8 * (lane >> 4);
        unsigned vb[4];
        lp::ldmatrix_x4<true>(vb, row);
        lp::mma_m16n8k16<Format>(o_acc[j], pa, vb[0], vb[1]);
        lp::mma_m16n8k16<Format>(o_acc[j + 1], pa, vb[2], vb[3]);
      }
    }
  }
  if (kAligned) lp::cp_async_wait<0>();

  // ---- Epilogue: O / l, rounded once, through this warp's Q rows (only this warp reads them) ----
  float inv_sum[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float l = row_sum[i];
    l += lp::shuffle_xor(l, 1);
    l += lp::shuffle_xor(l, 2);
    inv_sum[i] = 1.0f / l;
  }
  std::uint16_t* o_rows = q_tile + warp * 16 * kLd;
#pragma unroll
  for (int j = 0; j < kDTiles; ++j) {
    const int col = j * 8 + 2 * t;
    const unsigned top = Format::pack(o_acc[j][0] * inv_sum[0], o_acc[j][1] * inv_sum[0]);
    const unsigned bottom = Format::pack(o_acc[j][2] * inv_sum[1], o_acc[j][3] * inv_sum[1]);
    *reinterpret_cast<unsigned*>(o_rows + g * kLd + col) = top;
    *reinterpret_cast<unsigned*>(o_rows + (g + 8) * kLd + col) = bottom;
  }
  __syncwarp();
  const std::int64_t row0 = q0 + warp * 16;
  if constexpr (kAligned) {
    constexpr int kChunksPerRow = kD / 8;
#pragma unroll
    for (int i = 0; i < 16 * kChunksPerRow / 32; ++i) {
      const int chunk = lane + 32 * i;
      const int r = chunk / kChunksPerRow;
      const int c = (chunk % kChunksPerRow) * 8;
      if (row0 + r < p.seq) {
        *reinterpret_cast<uint4*>(o_base + (row0 + r) * kD + c) =
            *reinterpret_cast<const uint4*>(o_rows + r * kLd + c);
      }
    }
  } else {
    for (int e = lane; e < 16 * kD; e += 32) {
      const int r = e / kD;
      const int c = e % kD;
      if (row0 + r < p.seq) o_base[(row0 + r) * kD + c] = o_rows[r * kLd + c];
    }
  }
}

// The grid the launch uses: x = B * H blocks, y = query tiles.
inline void grid_shape(const Params& p, std::int64_t& x, std::int64_t& y) {
  x = p.batch * p.heads;
  y = (p.seq + kBlockQ - 1) / kBlockQ;
}

#if !defined(RKT_CUDA_EMULATION)
constexpr std::int64_t kMaxGridX = 2147483647;  // [blocks]
constexpr std::int64_t kMaxGridY = 65535;       // [blocks]

// Launches the forward for p (seq > 0, heads % kv_heads == 0) on `stream`. Returns the launch
// status (cudaFuncSetAttribute's if that fails; cudaErrorInvalidConfiguration past the grid).
template <class Format, int kD, bool kCausal>
cudaError_t launch_flash_attention(const Params& p, cudaStream_t stream) {
  std::int64_t x = 0;
  std::int64_t y = 0;
  grid_shape(p, x, y);
  if (x > kMaxGridX || y > kMaxGridY) return cudaErrorInvalidConfiguration;
  constexpr std::size_t kShared = shared_bytes<kD>();
  const bool aligned = lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) &&
                       lp::aligned16(p.o);
  const auto launch = [&](auto kernel) {
    const cudaError_t attribute = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared));
    if (attribute != cudaSuccess) return attribute;
    kernel<<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), kThreads, kShared,
             stream>>>(p);
    return cudaGetLastError();
  };
  return aligned ? launch(flash_attention_kernel<Format, kD, kCausal, true>)
                 : launch(flash_attention_kernel<Format, kD, kCausal, false>);
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::flash
