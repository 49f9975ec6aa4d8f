// low_precision_emulation.h: the rest of CUDA that the bf16 / fp16 kernels of kernels/cuda/
// (low_precision_mma.cuh, flash_attention.cuh, bf16_gemm.cuh) need on the CPU, on top of
// cuda_emulation.h (threads, blocks, barriers). Include it before those headers, with
// RKT_CUDA_EMULATION defined.
//
// What is emulated, and how faithfully:
//   - bf16 and fp16 conversions, bit-exact: to fp32 exactly, from fp32 rounding to nearest even
//     (subnormals, overflow to infinity, NaN kept);
//   - 16-byte cp.async with zero fill: recorded at issue (the source is read then) and written to
//     shared memory only when cp.async.wait_group releases its group, so a stage read before its
//     wait holds stale data (shared memory starts as NaN);
//   - ldmatrix.x4 (plain and .trans): warp-collective; each lane deposits its row address, and
//     each lane then reads its elements at the positions the PTX ISA gives;
//   - mma.sync.m16n8k16 with bf16 / fp16 inputs and fp32 accumulators: warp-collective; each lane
//     deposits its A and B fragments at their PTX positions, and each lane computes its own four
//     accumulators from the whole 16 x 8 x 16 product (exact products, an fp32 sum);
//   - __shfl_xor_sync over the full warp.
// What is not: timing, bank conflicts, registers, and the tensor cores' exact accumulation order.
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#error "define RKT_CUDA_EMULATION before including low_precision_emulation.h"
#endif

#include "cuda_emulation.h"
// cuda_emulation.h first: this header builds on its block state.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

namespace rkt_emulation {

// ---- Conversions --------------------------------------------------------------------------------

inline std::uint16_t float_to_bf16(float x) {
  const unsigned u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  const unsigned rounding = 0x7fffu + ((u >> 16) & 1u);  // to nearest, ties to even
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

inline float fp16_to_float(std::uint16_t h) {
  const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  if (exponent == 31) return mantissa ? std::nanf("") : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

inline std::uint16_t float_to_fp16(float x) {
  const unsigned u = __float_as_uint(x);
  const unsigned sign = (u >> 16) & 0x8000u;
  const unsigned magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  const int exponent = static_cast<int>(magnitude >> 23) - 127;
  if (exponent >= 16) return static_cast<std::uint16_t>(sign | 0x7c00u);  // infinity
  if (exponent < -14) {
    // Subnormal (or zero): in units of 2^-24, rounded to nearest even (exact scaling).
    const float units = std::nearbyint(std::fabs(x) * 16777216.0f);
    return static_cast<std::uint16_t>(sign | static_cast<unsigned>(units));
  }
  const unsigned mantissa = magnitude & 0x7fffffu;
  unsigned h = (static_cast<unsigned>(exponent + 15) << 10) | (mantissa >> 13);
  const unsigned rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry reaches the exponent
  return static_cast<std::uint16_t>(sign | h);
}

// ---- Warp exchange areas (one per warp of the block being run) --------------------------------

struct LowPrecisionWarpArea {
  const std::uint16_t* rows[32];
  float a[16][16];
  float b[16][8];
  float lanes[32];
};
inline LowPrecisionWarpArea low_precision_warps[32];

inline int emulated_lane() { return static_cast<int>(threadIdx.x) & 31; }
inline int emulated_warp() { return static_cast<int>(threadIdx.x) >> 5; }
inline void warp_barrier() { current_block->warps[emulated_warp()].barrier.arrive_and_wait(); }

// ---- cp.async, 16 bytes -------------------------------------------------------------------------

struct PendingCopy16 {
  void* dst;
  unsigned char bytes[16];
};
inline PerEmulatedThread<CopyGroups<PendingCopy16>> copy_groups16;

inline void cp_async16(void* dst, const void* src, bool valid) {
  PendingCopy16 copy{dst, {}};
  if (valid) std::memcpy(copy.bytes, src, 16);
  copy_groups16.mine().open.push_back(copy);
}

inline void cp_async16_commit() {
  CopyGroups<PendingCopy16>& groups = copy_groups16.mine();
  groups.committed.push_back(std::move(groups.open));
  groups.open.clear();
}

inline void cp_async16_wait(int pending) {
  CopyGroups<PendingCopy16>& groups = copy_groups16.mine();
  while (static_cast<int>(groups.committed.size()) > pending) {
    for (const PendingCopy16& copy : groups.committed.front())
      std::memcpy(copy.dst, copy.bytes, 16);
    groups.committed.pop_front();
  }
}

// ---- ldmatrix, mma, shuffles --------------------------------------------------------------------

inline void ldmatrix_x4(unsigned (&r)[4], const std::uint16_t* row, bool trans) {
  LowPrecisionWarpArea& area = low_precision_warps[emulated_warp()];
  const int lane = emulated_lane();
  area.rows[lane] = row;
  warp_barrier();
  const int g = lane >> 2;
  const int t = lane & 3;
  for (int i = 0; i < 4; ++i) {
    std::uint16_t lo, hi;
    if (trans) {  // column g, rows 2t and 2t + 1 of matrix i
      lo = area.rows[8 * i + 2 * t][g];
      hi = area.rows[8 * i + 2 * t + 1][g];
    } else {  // row g, columns 2t and 2t + 1 of matrix i
      lo = area.rows[8 * i + g][2 * t];
      hi = area.rows[8 * i + g][2 * t + 1];
    }
    r[i] = unsigned{lo} | (unsigned{hi} << 16);
  }
  warp_barrier();  // nobody overwrites the addresses before everyone has read them
}

inline float half_to_float(unsigned bits, bool bf16) {
  const std::uint16_t h = static_cast<std::uint16_t>(bits & 0xffffu);
  return bf16 ? __uint_as_float(unsigned{h} << 16) : fp16_to_float(h);
}

inline void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1,
                         bool bf16) {
  LowPrecisionWarpArea& area = low_precision_warps[emulated_warp()];
  const int lane = emulated_lane();
  const int g = lane >> 2;
  const int t = lane & 3;
  for (int h = 0; h < 2; ++h) {
    area.a[g][2 * t + h] = half_to_float(a[0] >> (16 * h), bf16);
    area.a[g + 8][2 * t + h] = half_to_float(a[1] >> (16 * h), bf16);
    area.a[g][2 * t + 8 + h] = half_to_float(a[2] >> (16 * h), bf16);
    area.a[g + 8][2 * t + 8 + h] = half_to_float(a[3] >> (16 * h), bf16);
    area.b[2 * t + h][g] = half_to_float(b0 >> (16 * h), bf16);
    area.b[2 * t + 8 + h][g] = half_to_float(b1 >> (16 * h), bf16);
  }
  warp_barrier();
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r >> 1);
    const int col = 2 * t + (r & 1);
    float sum = 0.0f;
    for (int k = 0; k < 16; ++k) sum += area.a[row][k] * area.b[k][col];  // products exact
    d[r] += sum;
  }
  warp_barrier();
}

inline float shuffle_xor(float v, int mask) {
  LowPrecisionWarpArea& area = low_precision_warps[emulated_warp()];
  const int lane = emulated_lane();
  area.lanes[lane] = v;
  warp_barrier();
  const float other = area.lanes[lane ^ mask];
  warp_barrier();
  return other;
}

}  // namespace rkt_emulation

inline void __syncwarp() { rkt_emulation::warp_barrier(); }
