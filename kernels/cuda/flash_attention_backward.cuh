// flash_attention_backward.cuh: the backward of causal attention for bf16 / fp16 on the tensor
// cores (mma.sync.m16n8k16, fp32 accumulators): given q, k, v and grad_o, the gradients grad_q,
// grad_k and grad_v, recomputing the probabilities tile by tile instead of storing them. The two
// kernels and their launch function; flash_attention_backward.cu registers them, and
// tests/kernel_emulation/ runs them on the CPU (RKT_CUDA_EMULATION; the launch is left out there).
//
// Layouts (the attention_causal_<DT>_backward tasks' contract): q, grad_o, grad_q [B, H, S, D];
// k, v, grad_k, grad_v [B, G, S, D], contiguous; query head h reads kv head h / (H / G); scale
// 1 / sqrt(D); query i sees key j iff j <= i.
//
// The maths (FlashAttention-2's backward; s = q k^T scale, P = softmax(s) per query row,
// dP = grad_o v^T):
//   grad_v = P^T grad_o,   dS = P (dP - delta),   grad_q = dS k scale,   grad_k = dS^T q scale,
// with delta_i = sum_j P_ij dP_ij (= rowsum(grad_o_i o_i), which is how it is usually written; in
// this form it needs no o, which the task does not give).
//
// Design: two kernels, 4 warps each, tiles of 64 queries and 64 keys, one m16 slice per warp:
//   1. query kernel, one block per (batch x head, 64 queries), each warp 16 query rows:
//      pass 1 streams the visible K / V tiles and computes S = Q K^T and dP = dO V^T to get each
//      row's max and log-sum (online: running max and sum, base 2) and delta (the running sum of
//      exp(s - max) dP, rescaled with the sum); all three go to fp32 scratch for kernel 2;
//      pass 2 streams the same tiles again, recomputes S and dP, P = exp2((s - max) - log2 sum),
//      and accumulates dQ += dS K in registers; dQ is written once (no atomics).
//   - the max and the log-sum are kept apart, not summed into one log-sum-exp, and each score is
//     rounded once (base2_score, never fused into an fma): s - max is then exact (the same fp32
//     products, Sterbenz), while max + log2 sum rounds to the max's ulp and a fused s * scale -
//     max keeps the product's rounding error, each of which at large scores (inputs x206: s near
//     5e5, ulp 1/16) moved P by up to 2%; run 38 (docs/gpu_runs.md) failed grad_v's error-norm
//     bound on it;
//   2. key kernel, one block per (batch x kv head, 64 keys), each warp 16 keys: K and V stay in
//      shared memory; for each query head of the group in order, and each query tile from the
//      diagonal on, it stages Q, dO, the row statistics and delta and computes S^T = K Q^T and dP^T = V dO^T,
//      P^T and dS^T, then dV += P^T dO and dK += dS^T Q. The group's heads are summed inside the
//      block in a fixed order, so grad_k and grad_v are deterministic without float atomics.
//   - P^T and dS^T (and dS in kernel 1) are rounded to the input format to feed the next MMA from
//     the accumulator registers directly (as the forward does with P); every sum is fp32;
//   - ldmatrix layouts: A operands (Q, dO in kernel 1; K, V in kernel 2) with the plain x4 load of
//     a row-major tile; B operands stored n-major (K, V in kernel 1; Q, dO as the n of S^T, dP^T
//     in kernel 2) with the plain load; B stored k-major (K for dQ; dO, Q for dV, dK) transposed;
//   - masking only on the tiles that need it: the diagonal tile and a tile with queries past S
//     (keys past S are past every valid query, so the causal test covers them);
//   - the streamed tiles (K and V in kernel 1, through both passes as one pipeline; Q, dO, the
//     row statistics and delta in kernel 2, through all the group's heads) double-buffered: the next step's
//     tiles load (cp.async, 16-byte copies zero-filled past S, or 2-byte loads when a buffer is
//     not 16-byte aligned) while the current one is computed; rows padded to D + 8 elements
//     (conflict-free ldmatrix). Shared memory: 6 tiles, 105 KB at D = 128 (two blocks per SM);
//   - epilogues: each warp stages its 16 finished rows in the shared rows only it reads (its Q
//     rows in kernel 1, its K and V rows in kernel 2) and writes them with 16-byte stores (2-byte
//     when misaligned).
// Work: nine causal products of about B H S^2 D flops each (2 flops per multiply-add over the
// S^2 / 2 visible query-key pairs, times D): 2 in pass 1, 3 in pass 2, 4 in the key kernel, where a
// fused FlashAttention-2 backward does 5 (it adds dQ with atomics from the key kernel and reads
// the forward's saved log-sum-exp). The price of determinism without atomics and of a task that
// gives no forward statistics. Not measured on a GPU (no device time was left when it was
// written), so no speed is claimed. ptxas (sm_90): 163-245 registers per thread and no spills,
// except the D = 128 key kernel (255 registers, 12-56 bytes spilled: it holds two 16 x 128 fp32
// accumulators per warp, dK and dV).
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "flash_attention.cuh"
#include "low_precision_mma.cuh"

namespace rkt::cuda_kernels::flash_backward {

namespace flash = rkt::cuda_kernels::flash;
namespace lp = rkt::cuda_kernels::low_precision;

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kTile = 64;  // queries per query tile, keys per key tile (16 per warp)
static_assert(kThreads == flash::kThreads, "the tiles are staged with the forward's load_tile");
static_assert(kTile == 16 * kWarps, "one m16 slice per warp");

struct Params {
  const std::uint16_t* q;       // [B, H, S, D]
  const std::uint16_t* k;       // [B, G, S, D]
  const std::uint16_t* v;       // [B, G, S, D]
  const std::uint16_t* grad_o;  // [B, H, S, D]
  std::uint16_t* grad_q;        // [B, H, S, D]
  std::uint16_t* grad_k;        // [B, G, S, D]
  std::uint16_t* grad_v;        // [B, G, S, D]
  float* row_max;               // [B, H, S] scratch: max_j s_ij log2 e
  float* row_log2_sum;          // [B, H, S] scratch: log2 of sum_j exp2(s_ij log2 e - row_max)
  float* delta;                 // [B, H, S] scratch: sum_j P_ij dP_ij
  std::int64_t batch, heads, kv_heads, seq;
  float scale;       // 1 / sqrt(D)
  float scale_log2;  // log2(e) / sqrt(D)
};

template <int kD>
__host__ __device__ constexpr int row_stride() {
  return kD + flash::kPad;  // [elements]
}

// Six [kTile][D + 8] tiles (kernel 1: Q, dO, two K and two V stages; kernel 2: K, V, two Q and
// two dO stages), then kernel 2's row max, log-sum and delta for its two staged query tiles.
template <int kD>
__host__ __device__ constexpr std::size_t shared_bytes() {
  return sizeof(std::uint16_t) * 6 * kTile * static_cast<std::size_t>(row_stride<kD>()) +
         sizeof(float) * 6 * kTile;
}

// This lane's ldmatrix row / column offsets (see flash_attention.cuh): matrix i = lane / 8.
// A (row-major [m][k]) and transposed B (k-major [k][n]): rows +8 (i & 1), columns +8 (i >> 1).
// Plain B (n-major [n][k]): rows +8 (i >> 1), columns +8 (i & 1).
struct LaneOffsets {
  int a_row, a_col, b_row, b_col;
};

__device__ __forceinline__ LaneOffsets lane_offsets(int lane) {
  return {(lane & 7) + 8 * ((lane >> 3) & 1), 8 * (lane >> 4), (lane & 7) + 8 * (lane >> 4),
          8 * ((lane >> 3) & 1)};
}

// acc[j] (j = 0..7: columns 8j..8j+7 of a 16 x 64 product) += A B^T over d, where A is the warp's
// 16 rows of a row-major [.][kD] tile (a_rows points at its first row) and B the 64 rows of an
// n-major [64][kD] tile. S = Q K^T, dP = dO V^T (kernel 1) and S^T = K Q^T, dP^T = V dO^T
// (kernel 2) are all this product.
template <class Format, int kD>
__device__ __forceinline__ void multiply_rows_by_tile(float (&acc)[kTile / 8][4],
                                                      const std::uint16_t* a_rows,
                                                      const std::uint16_t* b_tile,
                                                      const LaneOffsets& at) {
  constexpr int kLd = row_stride<kD>();
#pragma unroll
  for (int j = 0; j < kTile / 8; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) acc[j][r] = 0.0f;
#pragma unroll
  for (int s = 0; s < kD / 16; ++s) {
    unsigned a[4];
    lp::ldmatrix_x4<false>(a, a_rows + at.a_row * kLd + 16 * s + at.a_col);
#pragma unroll
    for (int j = 0; j < kTile / 8; j += 2) {
      unsigned b[4];  // n (j*8 + 0..7) x k (+0, +8), then n (j*8 + 8..15) x k (+0, +8)
      lp::ldmatrix_x4<false>(b, b_tile + (j * 8 + at.b_row) * kLd + 16 * s + at.b_col);
      lp::mma_m16n8k16<Format>(acc[j], a, b[0], b[1]);
      lp::mma_m16n8k16<Format>(acc[j + 1], a, b[2], b[3]);
    }
  }
}

// out[j] (j = 0..kD/8-1: columns 8j..8j+7 of a 16 x kD product) += W B, where W is a 16 x 64
// accumulator of this warp (P, dS or their transposes), rounded to the format to be the A
// operand, and B a k-major [64][kD] tile (read transposed). dQ += dS K, dV += P^T dO and
// dK += dS^T Q are all this product.
template <class Format, int kD>
__device__ __forceinline__ void accumulate_weights_times_tile(float (&out)[kD / 8][4],
                                                              const float (&w)[kTile / 8][4],
                                                              const std::uint16_t* b_tile,
                                                              const LaneOffsets& at) {
  constexpr int kLd = row_stride<kD>();
#pragma unroll
  for (int c = 0; c < kTile / 16; ++c) {
    // W's columns 16c .. 16c + 15 as an A fragment: accumulator tiles 2c (a[0], a[1]) and
    // 2c + 1 (a[2], a[3]); c[0..1] hold row g, c[2..3] row g + 8.
    unsigned a[4];
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float(&wj)[4] = w[2 * c + half];
      a[2 * half] = Format::pack(wj[0], wj[1]);
      a[2 * half + 1] = Format::pack(wj[2], wj[3]);
    }
#pragma unroll
    for (int j = 0; j < kD / 8; j += 2) {
      unsigned b[4];  // k (16c + 0..7, + 8..15) x n (j*8 ..), then the same at n (j*8 + 8 ..)
      lp::ldmatrix_x4<true>(b, b_tile + (16 * c + at.a_row) * kLd + j * 8 + at.a_col);
      lp::mma_m16n8k16<Format>(out[j], a, b[0], b[1]);
      lp::mma_m16n8k16<Format>(out[j + 1], a, b[2], b[3]);
    }
  }
}

// Writes a warp's 16 x kD fp32 accumulator, times `factor` and rounded once, into the warp's
// 16 shared rows (row g and g + 8 of each n8 tile, 4-byte pairs).
template <class Format, int kD>
__device__ __forceinline__ void stage_accumulator(std::uint16_t* rows,
                                                  const float (&acc)[kD / 8][4], float factor,
                                                  int lane) {
  constexpr int kLd = row_stride<kD>();
  const int g = lane >> 2;
  const int t = lane & 3;
#pragma unroll
  for (int j = 0; j < kD / 8; ++j) {
    const int col = j * 8 + 2 * t;
    *reinterpret_cast<unsigned*>(rows + g * kLd + col) =
        Format::pack(acc[j][0] * factor, acc[j][1] * factor);
    *reinterpret_cast<unsigned*>(rows + (g + 8) * kLd + col) =
        Format::pack(acc[j][2] * factor, acc[j][3] * factor);
  }
}

// Copies a warp's 16 staged shared rows to rows row0 .. row0 + 15 of a [seq, kD] matrix, leaving
// rows at or past seq alone: 16-byte stores, or 2-byte stores for a misaligned buffer.
template <int kD, bool kAligned>
__device__ __forceinline__ void store_warp_rows(std::uint16_t* base, std::int64_t seq,
                                                std::int64_t row0, const std::uint16_t* rows,
                                                int lane) {
  constexpr int kLd = row_stride<kD>();
  if constexpr (kAligned) {
    constexpr int kChunksPerRow = kD / 8;
#pragma unroll
    for (int i = 0; i < 16 * kChunksPerRow / 32; ++i) {
      const int chunk = lane + 32 * i;
      const int r = chunk / kChunksPerRow;
      const int c = (chunk % kChunksPerRow) * 8;
      if (row0 + r < seq) {
        *reinterpret_cast<uint4*>(base + (row0 + r) * kD + c) =
            *reinterpret_cast<const uint4*>(rows + r * kLd + c);
      }
    }
  } else {
    for (int e = lane; e < 16 * kD; e += 32) {
      const int r = e / kD;
      const int c = e % kD;
      if (row0 + r < seq) base[(row0 + r) * kD + c] = rows[r * kLd + c];
    }
  }
}

// The top of a pipelined step: waits for this thread's copies into the step's stage (aligned
// path: cp.async), then at the barrier for everyone's; past the barrier every thread is also done
// with the previous step, so its stage may be refilled.
// A score in base 2, s * scale_log2, rounded once and never fused with the subtraction that
// follows: nvcc contracts x * y - z into one fma by default, whose exact product is not the
// rounded one the row max was taken of. At scores near 5e5 (inputs x206) that difference reached
// the max's half ulp, 1/32, and moved P of each row's top key by up to 2% (run 38).
__device__ __forceinline__ float base2_score(float s, float scale_log2) {
  return __fmul_rn(s, scale_log2);
}

template <bool kAligned>
__device__ __forceinline__ void wait_for_stage() {
  if (kAligned) lp::cp_async_wait<0>();
  __syncthreads();
}

// Kernel 1: the row statistics (max, log-sum, delta) of 64 queries of one head, then their grad_q.
// Grid: x = batch x head, y = query tile, the longest (last) tiles first.
template <class Format, int kD, bool kAligned>
__global__ void __launch_bounds__(kThreads) flash_backward_query_kernel(const Params p) {
  constexpr int kLd = row_stride<kD>();
  constexpr int kTileElems = kTile * kLd;
  constexpr int kKeyTiles = kTile / 8;  // n8 tiles of S
  static_assert(kD % 16 == 0, "head dim a multiple of 16");

  extern __shared__ uint4 flash_backward_shared_raw[];  // 16-byte aligned (cp.async, ldmatrix)
  std::uint16_t* shared = reinterpret_cast<std::uint16_t*>(flash_backward_shared_raw);
  std::uint16_t* q_tile = shared;
  std::uint16_t* do_tile = q_tile + kTileElems;
  std::uint16_t* k_stage = do_tile + kTileElems;      // two stages
  std::uint16_t* v_stage = k_stage + 2 * kTileElems;  // two stages

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int g = lane >> 2;
  const int t = lane & 3;
  const LaneOffsets at = lane_offsets(lane);

  const std::int64_t bh = blockIdx.x;
  const std::int64_t b = bh / p.heads;
  const std::int64_t h = bh % p.heads;
  const std::int64_t kv = h / (p.heads / p.kv_heads);
  const std::int64_t q_tiles = (p.seq + kTile - 1) / kTile;
  const std::int64_t qt = q_tiles - 1 - blockIdx.y;
  const std::int64_t q0 = qt * kTile;
  const std::int64_t q_offset = (b * p.heads + h) * p.seq * kD;
  const std::int64_t kv_offset = (b * p.kv_heads + kv) * p.seq * kD;
  const std::int64_t stat_offset = (b * p.heads + h) * p.seq;
  const int warp_row = 16 * warp;
  // Causal: key tiles 0 .. qt (the last one is the diagonal tile).
  const std::int64_t kv_tiles = qt + 1;
  // Queries past S (a tail tile) see nothing, and the diagonal tile is half masked.
  const bool query_tail = q0 + kTile > p.seq;
  // This lane's accumulator rows g and g + 8.
  const std::int64_t query_row[2] = {q0 + warp_row + g, q0 + warp_row + g + 8};

  // The K / V tiles stream twice (pass 1, then pass 2), one pipeline of 2 kv_tiles steps: step
  // `step` computes on stage step & 1 while the next step's tiles load into the other stage.
  const std::int64_t steps = 2 * kv_tiles;
  const auto issue_key_tile = [&](std::int64_t step) {
    const int stage = static_cast<int>(step & 1);
    const std::int64_t key0 = (step % kv_tiles) * kTile;
    flash::load_tile<kD, kTile, kAligned>(k_stage + stage * kTileElems, p.k + kv_offset, p.seq,
                                          key0);
    flash::load_tile<kD, kTile, kAligned>(v_stage + stage * kTileElems, p.v + kv_offset, p.seq,
                                          key0);
    if (kAligned) lp::cp_async_commit();
  };
  // Waits for step's tiles, starts the next step's; returns the stage to compute on.
  const auto next_key_tile = [&](std::int64_t step) {
    wait_for_stage<kAligned>();
    if (step + 1 < steps) issue_key_tile(step + 1);
    return static_cast<int>(step & 1);
  };
  flash::load_tile<kD, kTile, kAligned>(q_tile, p.q + q_offset, p.seq, q0);
  flash::load_tile<kD, kTile, kAligned>(do_tile, p.grad_o + q_offset, p.seq, q0);
  issue_key_tile(0);  // one group with Q and dO
  const auto visible = [&](std::int64_t kt, int j, int r) {
    const std::int64_t key = kt * kTile + j * 8 + 2 * t + (r & 1);
    const std::int64_t query = query_row[r >> 1];
    return key <= query && query < p.seq;
  };

  // ---- Pass 1: max, log-sum and delta per row (online, base 2) ----
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0f, 0.0f};  // this lane's part of sum exp2(x - max)
  float row_dot[2] = {0.0f, 0.0f};  // this lane's part of sum exp2(x - max) dP
  for (std::int64_t kt = 0; kt < kv_tiles; ++kt) {
    const int stage = next_key_tile(kt);
    float s_acc[kKeyTiles][4];
    float dp_acc[kKeyTiles][4];
    multiply_rows_by_tile<Format, kD>(s_acc, q_tile + warp_row * kLd, k_stage + stage * kTileElems,
                                      at);
    multiply_rows_by_tile<Format, kD>(dp_acc, do_tile + warp_row * kLd,
                                      v_stage + stage * kTileElems, at);
    const bool needs_mask = kt == qt || query_tail;
    float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        float x = base2_score(s_acc[j][r], p.scale_log2);
        if (needs_mask && !visible(kt, j, r)) x = -INFINITY;
        s_acc[j][r] = x;
        tile_max[r >> 1] = fmaxf(tile_max[r >> 1], x);
      }
    float base[2];  // the max subtracted in the exponent; 0 while a row has seen no key
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 1));  // the quad shares a row
      tile_max[i] = fmaxf(tile_max[i], lp::shuffle_xor(tile_max[i], 2));
      const float new_max = fmaxf(row_max[i], tile_max[i]);
      base[i] = new_max == -INFINITY ? 0.0f : new_max;
      const float alpha = exp2f(row_max[i] - base[i]);  // row_max = -inf: 0
      row_max[i] = new_max;
      row_sum[i] *= alpha;
      row_dot[i] *= alpha;
    }
#pragma unroll
    for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const float e = exp2f(s_acc[j][r] - base[r >> 1]);  // masked: exp2(-inf) = 0
        row_sum[r >> 1] += e;
        row_dot[r >> 1] += e * dp_acc[j][r];
      }
  }
  float log2_sum[2];
  float delta[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    float l = row_sum[i];
    l += lp::shuffle_xor(l, 1);
    l += lp::shuffle_xor(l, 2);
    float dot = row_dot[i];
    dot += lp::shuffle_xor(dot, 1);
    dot += lp::shuffle_xor(dot, 2);
    // A valid row sees key 0, so l >= 1; a row past S has l = 0 and is never used.
    const bool seen = l > 0.0f;
    if (!seen) row_max[i] = 0.0f;
    log2_sum[i] = seen ? log2f(l) : 0.0f;
    delta[i] = seen ? dot / l : 0.0f;
    if (t == 0 && query_row[i] < p.seq) {
      p.row_max[stat_offset + query_row[i]] = row_max[i];
      p.row_log2_sum[stat_offset + query_row[i]] = log2_sum[i];
      p.delta[stat_offset + query_row[i]] = delta[i];
    }
  }

  // ---- Pass 2: dQ += dS K ----
  float dq_acc[kD / 8][4];
#pragma unroll
  for (int j = 0; j < kD / 8; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) dq_acc[j][r] = 0.0f;
  for (std::int64_t kt = 0; kt < kv_tiles; ++kt) {
    const int stage = next_key_tile(kv_tiles + kt);
    const std::uint16_t* k_tile = k_stage + stage * kTileElems;
    float s_acc[kKeyTiles][4];
    float dp_acc[kKeyTiles][4];
    multiply_rows_by_tile<Format, kD>(s_acc, q_tile + warp_row * kLd, k_tile, at);
    multiply_rows_by_tile<Format, kD>(dp_acc, do_tile + warp_row * kLd,
                                      v_stage + stage * kTileElems, at);
    const bool needs_mask = kt == qt || query_tail;
#pragma unroll
    for (int j = 0; j < kKeyTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const float prob = needs_mask && !visible(kt, j, r)
                               ? 0.0f
                               : exp2f((base2_score(s_acc[j][r], p.scale_log2) - row_max[r >> 1]) -
                                       log2_sum[r >> 1]);
        s_acc[j][r] = prob * (dp_acc[j][r] - delta[r >> 1]);  // dS
      }
    accumulate_weights_times_tile<Format, kD>(dq_acc, s_acc, k_tile, at);
  }

  // ---- Epilogue: dQ scale, through this warp's Q rows (only this warp reads them) ----
  std::uint16_t* rows = q_tile + warp_row * kLd;
  __syncwarp();
  stage_accumulator<Format, kD>(rows, dq_acc, p.scale, lane);
  __syncwarp();
  store_warp_rows<kD, kAligned>(p.grad_q + q_offset, p.seq, q0 + warp_row, rows, lane);
}

// Kernel 2: grad_k and grad_v of 64 keys of one kv head, summed over its query heads.
// Grid: x = batch x kv head, y = key tile (the first tiles see the most queries).
template <class Format, int kD, bool kAligned>
__global__ void __launch_bounds__(kThreads) flash_backward_key_kernel(const Params p) {
  constexpr int kLd = row_stride<kD>();
  constexpr int kTileElems = kTile * kLd;
  constexpr int kQueryTiles = kTile / 8;  // n8 tiles of S^T
  static_assert(kD % 16 == 0, "head dim a multiple of 16");

  extern __shared__ uint4 flash_backward_shared_raw[];
  std::uint16_t* shared = reinterpret_cast<std::uint16_t*>(flash_backward_shared_raw);
  std::uint16_t* k_tile = shared;
  std::uint16_t* v_tile = k_tile + kTileElems;
  std::uint16_t* q_stage = v_tile + kTileElems;                            // two stages
  std::uint16_t* do_stage = q_stage + 2 * kTileElems;                      // two stages
  float* max_stage = reinterpret_cast<float*>(do_stage + 2 * kTileElems);  // two stages
  float* log2_sum_stage = max_stage + 2 * kTile;                           // two stages
  float* delta_stage = log2_sum_stage + 2 * kTile;                         // two stages

  const int warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int g = lane >> 2;
  const int t = lane & 3;
  const LaneOffsets at = lane_offsets(lane);

  const std::int64_t bg = blockIdx.x;
  const std::int64_t b = bg / p.kv_heads;
  const std::int64_t kv = bg % p.kv_heads;
  const std::int64_t group = p.heads / p.kv_heads;
  const std::int64_t kt = blockIdx.y;
  const std::int64_t k0 = kt * kTile;
  const std::int64_t q_tiles = (p.seq + kTile - 1) / kTile;
  const std::int64_t kv_offset = (b * p.kv_heads + kv) * p.seq * kD;
  const int warp_key = 16 * warp;
  // This lane's accumulator rows (keys) g and g + 8.
  const std::int64_t key_row[2] = {k0 + warp_key + g, k0 + warp_key + g + 8};

  // The group's query heads in a fixed order, then the query tiles from the diagonal on (the order
  // of every sum is the same at every call), as one pipeline of `steps` steps: step `step`
  // computes on stage step & 1 while the next step's Q, dO and row statistics load into the other.
  const std::int64_t tiles_per_head = q_tiles - kt;
  const std::int64_t steps = group * tiles_per_head;
  const auto issue_query_tile = [&](std::int64_t step) {
    const int stage = static_cast<int>(step & 1);
    const std::int64_t head = kv * group + step / tiles_per_head;
    const std::int64_t q0 = (kt + step % tiles_per_head) * kTile;
    const std::int64_t q_offset = (b * p.heads + head) * p.seq * kD;
    const std::int64_t stat_offset = (b * p.heads + head) * p.seq;
    flash::load_tile<kD, kTile, kAligned>(q_stage + stage * kTileElems, p.q + q_offset, p.seq, q0);
    flash::load_tile<kD, kTile, kAligned>(do_stage + stage * kTileElems, p.grad_o + q_offset, p.seq,
                                          q0);
    const int thread = static_cast<int>(threadIdx.x);
    if (thread < kTile) {
      const std::int64_t query = q0 + thread;
      max_stage[stage * kTile + thread] = query < p.seq ? p.row_max[stat_offset + query] : 0.0f;
      log2_sum_stage[stage * kTile + thread] =
          query < p.seq ? p.row_log2_sum[stat_offset + query] : 0.0f;
      delta_stage[stage * kTile + thread] = query < p.seq ? p.delta[stat_offset + query] : 0.0f;
    }
    if (kAligned) lp::cp_async_commit();
  };
  flash::load_tile<kD, kTile, kAligned>(k_tile, p.k + kv_offset, p.seq, k0);
  flash::load_tile<kD, kTile, kAligned>(v_tile, p.v + kv_offset, p.seq, k0);
  issue_query_tile(0);  // one group with K and V

  float dk_acc[kD / 8][4];
  float dv_acc[kD / 8][4];
#pragma unroll
  for (int j = 0; j < kD / 8; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r) dk_acc[j][r] = dv_acc[j][r] = 0.0f;

  for (std::int64_t step = 0; step < steps; ++step) {
    wait_for_stage<kAligned>();
    if (step + 1 < steps) issue_query_tile(step + 1);
    const int stage = static_cast<int>(step & 1);
    const std::int64_t qt = kt + step % tiles_per_head;
    const std::int64_t q0 = qt * kTile;
    const std::uint16_t* q_tile = q_stage + stage * kTileElems;
    const std::uint16_t* do_tile = do_stage + stage * kTileElems;
    const float* max_tile = max_stage + stage * kTile;
    const float* log2_sum_tile = log2_sum_stage + stage * kTile;
    const float* delta_tile = delta_stage + stage * kTile;

    float s_acc[kQueryTiles][4];   // S^T: keys x queries
    float dp_acc[kQueryTiles][4];  // dP^T
    multiply_rows_by_tile<Format, kD>(s_acc, k_tile + warp_key * kLd, q_tile, at);
    multiply_rows_by_tile<Format, kD>(dp_acc, v_tile + warp_key * kLd, do_tile, at);
    const bool needs_mask = qt == kt || q0 + kTile > p.seq;
#pragma unroll
    for (int j = 0; j < kQueryTiles; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int column = j * 8 + 2 * t + (r & 1);
        const std::int64_t query = q0 + column;
        const bool masked = needs_mask && (key_row[r >> 1] > query || query >= p.seq);
        const float prob =
            masked ? 0.0f
                   : exp2f((base2_score(s_acc[j][r], p.scale_log2) - max_tile[column]) -
                           log2_sum_tile[column]);
        s_acc[j][r] = prob;                                         // P^T
        dp_acc[j][r] = prob * (dp_acc[j][r] - delta_tile[column]);  // dS^T
      }
    accumulate_weights_times_tile<Format, kD>(dv_acc, s_acc, do_tile, at);
    accumulate_weights_times_tile<Format, kD>(dk_acc, dp_acc, q_tile, at);
  }

  // ---- Epilogue: through this warp's K and V rows (only this warp reads them) ----
  std::uint16_t* k_rows = k_tile + warp_key * kLd;
  std::uint16_t* v_rows = v_tile + warp_key * kLd;
  __syncwarp();
  stage_accumulator<Format, kD>(k_rows, dk_acc, p.scale, lane);
  stage_accumulator<Format, kD>(v_rows, dv_acc, 1.0f, lane);
  __syncwarp();
  store_warp_rows<kD, kAligned>(p.grad_k + kv_offset, p.seq, k0 + warp_key, k_rows, lane);
  store_warp_rows<kD, kAligned>(p.grad_v + kv_offset, p.seq, k0 + warp_key, v_rows, lane);
}

// The grids: kernel 1 x = B H, y = query tiles; kernel 2 x = B G, y = key tiles.
inline void query_grid(const Params& p, std::int64_t& x, std::int64_t& y) {
  x = p.batch * p.heads;
  y = (p.seq + kTile - 1) / kTile;
}
inline void key_grid(const Params& p, std::int64_t& x, std::int64_t& y) {
  x = p.batch * p.kv_heads;
  y = (p.seq + kTile - 1) / kTile;
}

#if !defined(RKT_CUDA_EMULATION)
constexpr std::int64_t kMaxGridX = 2147483647;  // [blocks]
constexpr std::int64_t kMaxGridY = 65535;       // [blocks]

// Launches kernel 1 then kernel 2 on `stream` for p (batch, heads, seq > 0, heads % kv_heads ==
// 0, p.row_max, p.row_log2_sum and p.delta holding B H S floats each). Returns the first failing status
// (cudaFuncSetAttribute's or the launch's; cudaErrorInvalidConfiguration past the grid limits).
template <class Format, int kD>
cudaError_t launch_flash_attention_backward(const Params& p, cudaStream_t stream) {
  std::int64_t qx = 0, qy = 0, kx = 0, ky = 0;
  query_grid(p, qx, qy);
  key_grid(p, kx, ky);
  if (qx > kMaxGridX || kx > kMaxGridX || qy > kMaxGridY || ky > kMaxGridY) {
    return cudaErrorInvalidConfiguration;
  }
  constexpr std::size_t kShared = shared_bytes<kD>();
  const bool aligned = lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) &&
                       lp::aligned16(p.grad_o) && lp::aligned16(p.grad_q) &&
                       lp::aligned16(p.grad_k) && lp::aligned16(p.grad_v);
  const auto launch = [&](auto kernel, std::int64_t x, std::int64_t y) {
    const cudaError_t attribute = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared));
    if (attribute != cudaSuccess) return attribute;
    kernel<<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), kThreads, kShared, stream>>>(
        p);
    return cudaGetLastError();
  };
  cudaError_t status = aligned ? launch(flash_backward_query_kernel<Format, kD, true>, qx, qy)
                               : launch(flash_backward_query_kernel<Format, kD, false>, qx, qy);
  if (status != cudaSuccess) return status;
  return aligned ? launch(flash_backward_key_kernel<Format, kD, true>, kx, ky)
                 : launch(flash_backward_key_kernel<Format, kD, false>, kx, ky);
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::flash_backward
