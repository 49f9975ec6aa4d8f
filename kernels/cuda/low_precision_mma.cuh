// low_precision_mma.cuh: what the bf16 / fp16 CUDA kernels share (flash_attention.cuh,
// bf16_gemm.cuh, the row and elementwise kernels): the two storage formats, conversions to and
// from fp32, 16-byte cp.async with zero fill, ldmatrix (plain and transposed) and the tensor-core
// mma.sync.m16n8k16 with fp32 accumulators, plus a warp shuffle.
//
// Storage: every bf16 / fp16 element is handled as its raw 16 bits (std::uint16_t), so that the
// kernels are templates over a Format (Bf16Format or Fp16Format) and the CPU emulation needs no
// CUDA header. Conversions to fp32 are exact; conversions from fp32 round to nearest even, once,
// where a kernel stores.
//
// Fragment layouts of mma.sync.m16n8k16 for .bf16 / .f16 inputs (PTX ISA; g = lane / 4,
// t = lane % 4; each 32-bit register holds two elements, the lower k (or column) in its low half):
//   A (16 x 16, row-major):  a[0] = (g, 2t..2t+1)      a[1] = (g + 8, 2t..2t+1)
//                            a[2] = (g, 2t+8..2t+9)    a[3] = (g + 8, 2t+8..2t+9)
//   B (16 x 8, "col"):       b[0] = (k = 2t..2t+1, n = g)   b[1] = (k = 2t+8..2t+9, n = g)
//   C (16 x 8, fp32):        c[0], c[1] = (g, 2t), (g, 2t + 1)   c[2], c[3] = the same at row g + 8
// ldmatrix.x4: lanes 8i..8i+7 give the addresses of the 8 rows (16 bytes each) of matrix i, and
// register i of lane l receives row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of matrix i
// (.trans: rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4). So an A fragment is one ldmatrix
// of a row-major tile; a B fragment is a plain ldmatrix where B is stored n-major ([n][k]: the
// keys of attention) and a transposed one where it is stored k-major ([k][n]: a GEMM's B [K, N],
// attention's V).
//
// CPU emulation: with RKT_CUDA_EMULATION defined, tests/kernel_emulation/low_precision_emulation.h
// (included first) stands in for the PTX below: warp-collective ldmatrix, MMA and shuffles, and
// deferred cp.async groups.
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

#include <cstdint>
#include <cstring>

namespace rkt::cuda_kernels::low_precision {

// ---- Formats ------------------------------------------------------------------------------------

struct Bf16Format {
  static constexpr bool kIsBf16 = true;
  __device__ __forceinline__ static float to_float(std::uint16_t bits) {
    return __uint_as_float(static_cast<unsigned>(bits) << 16);  // exact
  }
  // Two values rounded to nearest even, `lo` in the low half (the lower k or column).
  __device__ __forceinline__ static unsigned pack(float lo, float hi) {
#if defined(RKT_CUDA_EMULATION)
    return rkt_emulation::float_to_bf16(lo) | (unsigned{rkt_emulation::float_to_bf16(hi)} << 16);
#else
    const __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    unsigned bits;
    memcpy(&bits, &pair, sizeof bits);
    return bits;
#endif
  }
  __device__ __forceinline__ static std::uint16_t from_float(float x) {
#if defined(RKT_CUDA_EMULATION)
    return rkt_emulation::float_to_bf16(x);
#else
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
#endif
  }
};

struct Fp16Format {
  static constexpr bool kIsBf16 = false;
  __device__ __forceinline__ static float to_float(std::uint16_t bits) {
#if defined(RKT_CUDA_EMULATION)
    return rkt_emulation::fp16_to_float(bits);
#else
    return __half2float(__ushort_as_half(bits));
#endif
  }
  __device__ __forceinline__ static unsigned pack(float lo, float hi) {
#if defined(RKT_CUDA_EMULATION)
    return rkt_emulation::float_to_fp16(lo) | (unsigned{rkt_emulation::float_to_fp16(hi)} << 16);
#else
    const __half2 pair = __floats2half2_rn(lo, hi);
    unsigned bits;
    memcpy(&bits, &pair, sizeof bits);
    return bits;
#endif
  }
  __device__ __forceinline__ static std::uint16_t from_float(float x) {
#if defined(RKT_CUDA_EMULATION)
    return rkt_emulation::float_to_fp16(x);
#else
    return __half_as_ushort(__float2half_rn(x));
#endif
  }
};

// The low and high element of a packed pair, as fp32.
template <class Format>
__device__ __forceinline__ float low_half(unsigned pair) {
  return Format::to_float(static_cast<std::uint16_t>(pair & 0xffffu));
}
template <class Format>
__device__ __forceinline__ float high_half(unsigned pair) {
  return Format::to_float(static_cast<std::uint16_t>(pair >> 16));
}

// ---- cp.async (16 bytes, zero fill) -------------------------------------------------------------

// Copies 16 bytes from src to the shared address dst, or 16 zero bytes when !valid (source size
// 0: src is not read, but must be a valid address, so pass a base pointer).
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool valid) {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async16(dst, src, valid);
#else
  const unsigned dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src),
               "r"(src_bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async16_commit();
#else
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::cp_async16_wait(kPending);
#else
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// ---- ldmatrix and mma ---------------------------------------------------------------------------

// Four 8 x 8 matrices of 16-bit elements from shared memory; `row` is this lane's row address
// (16-byte aligned). kTrans: each lane gets a column pair instead of a row pair (see above).
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const std::uint16_t* row) {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::ldmatrix_x4(r, row, kTrans);
#else
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  }
#endif
}

// d += a * b for one m16n8k16 tile, fp32 accumulators (fragments as laid out above).
template <class Format>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4],
                                             const unsigned b0, const unsigned b1) {
#if defined(RKT_CUDA_EMULATION)
  rkt_emulation::mma_m16n8k16(d, a, b0, b1, Format::kIsBf16);
#else
  if constexpr (Format::kIsBf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
#endif
}

// v from lane (lane ^ mask) of the warp; every lane of the warp must call it.
__device__ __forceinline__ float shuffle_xor(float v, int mask) {
#if defined(RKT_CUDA_EMULATION)
  return rkt_emulation::shuffle_xor(v, mask);
#else
  return __shfl_xor_sync(0xffffffffu, v, mask);
#endif
}

// True when p is 16-byte aligned.
__host__ __device__ inline bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace rkt::cuda_kernels::low_precision
