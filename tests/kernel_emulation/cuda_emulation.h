// cuda_emulation.h: just enough of CUDA to run the tensor-core GEMM of kernels/cuda/
// (tf32x3_gemm.cuh, conv3x3_gemm.cuh) on the CPU, one block at a time, each of its threads a
// fiber (emulated_block.h), and to call row_cache.cuh's slot functions for a chosen thread.
// Include it before those headers, with RKT_CUDA_EMULATION defined.
//
// What is emulated, and how faithfully:
//   - threadIdx / blockIdx / gridDim / blockDim; __syncthreads as a barrier over the block (a
//     barrier some threads never reach is reported as a deadlock, not waited on forever);
//   - cp.async: every copy is recorded at issue (the source is read then: inputs are constant)
//     and lands in shared memory only when a cp.async.wait_group releases its group, so a
//     kernel that reads a stage before waiting for it reads stale data (shared memory starts as
//     NaN) and fails the comparison;
//   - mma.sync.m16n8k8 TF32: warp-collective. Each lane deposits its fragments at the positions
//     the PTX ISA gives (A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); B: b0
//     (k = t, n = g), b1 (k = t + 4, n = g); C: c0, c1 (g, 2t), (g, 2t + 1), c2, c3 the same
//     at row g + 8; g = lane / 4, t = lane % 4), the warp meets at a barrier, and each lane
//     computes its own accumulators from the whole 16 x 8 x 8 product. Operands are truncated to
//     TF32 (the low 13 bits ignored), as the tensor cores do.
// What is not: timing, occupancy, bank conflicts, register limits, the real PTX semantics
// (the PTX wrappers are replaced). It checks the index logic: tiles, tails, the pipeline order,
// the fragment layouts and the epilogues.
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#error "define RKT_CUDA_EMULATION before including cuda_emulation.h"
#endif

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__
#define __launch_bounds__(...)

struct alignas(16) float4 {
  float x, y, z, w;
};

inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

// A product rounded once and never contracted into an fma with what follows, as nvcc's
// __fmul_rn: the empty asm hides the value from g++'s -ffp-contract=fast.
inline float __fmul_rn(float a, float b) {
  float product = a * b;
#if defined(__x86_64__) || defined(__i386__)
  asm("" : "+x"(product));
#else
  asm("" : "+r"(product));
#endif
  return product;
}

template <class T>
T __ldg(const T* p) {
  return *p;
}

struct EmulatedDim3 {
  unsigned x = 1, y = 1, z = 1;
};

// The running fiber's indices: set by the block's scheduler each time it resumes a thread
// (emulated_block.h), or by a test that calls a device function for a chosen thread.
inline EmulatedDim3 threadIdx;
inline EmulatedDim3 blockIdx;
inline EmulatedDim3 gridDim;
inline EmulatedDim3 blockDim;

inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

#include "emulated_block.h"

namespace rkt_emulation {

// The block being run: its barrier and one exchange area per warp for the MMAs.
struct WarpExchange {
  explicit WarpExchange() : barrier(32) {}
  Barrier barrier;
  float a[16][8];
  float b[8][8];
};

struct BlockState {
  explicit BlockState(int threads) : barrier(threads), warps(threads / 32) {}
  Barrier barrier;
  std::deque<WarpExchange> warps;
};

inline BlockState* current_block = nullptr;

struct PendingCopy {
  float* dst;
  float values[4];
  int floats;
};

// Each thread's cp.async groups: the one being filled, and those committed and not yet waited for.
template <class Copy>
struct CopyGroups {
  std::vector<Copy> open;
  std::deque<std::vector<Copy>> committed;
};
inline PerEmulatedThread<CopyGroups<PendingCopy>> copy_groups;

inline void cp_async(float* dst, const float* src, int src_bytes, int bytes) {
  PendingCopy copy{dst, {0, 0, 0, 0}, bytes / 4};
  for (int i = 0; i < copy.floats; ++i) copy.values[i] = src_bytes > 0 ? src[i] : 0.0f;
  copy_groups.mine().open.push_back(copy);
}

inline void cp_async_commit() {
  CopyGroups<PendingCopy>& groups = copy_groups.mine();
  groups.committed.push_back(std::move(groups.open));
  groups.open.clear();
}

inline void cp_async_wait(int pending) {
  CopyGroups<PendingCopy>& groups = copy_groups.mine();
  while (static_cast<int>(groups.committed.size()) > pending) {
    for (const PendingCopy& copy : groups.committed.front())
      for (int i = 0; i < copy.floats; ++i) copy.dst[i] = copy.values[i];
    groups.committed.pop_front();
  }
}

// cvt.rna.tf32.f32: round to the nearest TF32 value, ties away from zero.
inline unsigned round_to_tf32(float x) {
  const unsigned u = __float_as_uint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return u;  // inf, NaN
  return (u + 0x1000u) & 0xffffe000u;
}

inline float as_tf32(unsigned u) { return __uint_as_float(u & 0xffffe000u); }

inline void mma_m16n8k8_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  WarpExchange& warp = current_block->warps[threadIdx.x / 32];
  const int g = lane >> 2;
  const int t = lane & 3;
  warp.a[g][t] = as_tf32(a[0]);
  warp.a[g + 8][t] = as_tf32(a[1]);
  warp.a[g][t + 4] = as_tf32(a[2]);
  warp.a[g + 8][t + 4] = as_tf32(a[3]);
  warp.b[t][g] = as_tf32(b[0]);
  warp.b[t + 4][g] = as_tf32(b[1]);
  warp.barrier.arrive_and_wait();
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r >> 1);
    const int col = 2 * t + (r & 1);
    float sum = 0.0f;
    for (int k = 0; k < 8; ++k) sum += warp.a[row][k] * warp.b[k][col];
    d[r] += sum;
  }
  warp.barrier.arrive_and_wait();  // nobody refills the exchange before everyone has read it
}

}  // namespace rkt_emulation

inline void __syncthreads() { rkt_emulation::current_block->barrier.arrive_and_wait(); }

namespace rkt_emulation {

// Runs body() as every thread of every block of `grid`, `threads` threads per block, one block
// at a time, calling before_block() before each block (to reset shared memory). body must be a
// call of the kernel under test.
inline void run_grid(EmulatedDim3 grid, int threads, const std::function<void()>& before_block,
                     const std::function<void()>& body) {
  gridDim = grid;
  blockDim = EmulatedDim3{static_cast<unsigned>(threads), 1, 1};
  EmulatedBlock fibers(threads);
  for (unsigned by = 0; by < grid.y; ++by) {
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      before_block();
      BlockState block(threads);
      current_block = &block;
      try {
        fibers.run(EmulatedDim3{bx, by, 0}, body);
      } catch (...) {
        current_block = nullptr;  // never left pointing at a block that is gone
        throw;
      }
      current_block = nullptr;
    }
  }
}

}  // namespace rkt_emulation
