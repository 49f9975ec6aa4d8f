// conv3x3_gemm.cuh: a 3x3, stride 1, zero-padding 1 convolution of NCHW fp32 tensors as an
// implicit GEMM on tf32x3_gemm.cuh: C[m, n] with m = a pixel (b, oy, ox) of the output (M = B*H*W),
// n = an output channel, k = (ci, ky, kx) (K = Cin*9):
//   A[m, k] = x[b, ci, oy + ky - 1, ox + kx - 1] (0 outside the image), never materialised: each
//             pipeline stage gathers its 128 x 32 slice straight from x with 4-byte cp.async
//             (zero-filled outside the image and beyond M, K);
//   B[k, n] = w[n, ci, ky, kx]: the weights [Cout, Cin*9] are already n-major and k-contiguous.
// The caller's epilogue receives (b, channel, pixel offset oy*W + ox) and the accumulator, so a
// bias, a BatchNorm, a ReLU or a residual add is applied as the output is written once (NCHW).
// Thread t of the 256 stages pixel t % 128 of the tile for k offsets t / 128, +2, ... +30, so a
// warp reads 32 consecutive pixels (mostly consecutive ox: coalesced) and writes 32 consecutive
// shared-memory words (conflict-free).
#pragma once

#if !defined(RKT_CUDA_EMULATION)
#include <cuda_runtime.h>
#endif

#include <cstdint>

#include "tf32x3_gemm.cuh"

namespace rkt::cuda_kernels::conv3x3 {

namespace gemm = rkt::cuda_kernels::gemm;
static_assert(gemm::kThreads == 2 * gemm::kBM, "two threads per staged pixel");

// The geometry of a 3x3 / stride 1 / padding 1 convolution.
struct Geometry {
  int batch, cin, cout, h, w;
  __host__ __device__ std::int64_t pixels() const { return std::int64_t{batch} * h * w; }  // M
  __host__ __device__ std::int64_t taps() const { return std::int64_t{cin} * 9; }          // K
};

// Stages A[m0 : m0 + 128, k0 : k0 + 32] of the implicit im2col matrix of x into a
// RowsContiguous<kBM> stage.
__device__ __forceinline__ void load_im2col(float* stage, const float* __restrict__ x,
                                            const Geometry& g, std::int64_t m0, std::int64_t k0) {
  const int r = static_cast<int>(threadIdx.x) % gemm::kBM;
  const int kk0 = static_cast<int>(threadIdx.x) / gemm::kBM;
  const std::int64_t m = m0 + r;
  const bool pixel_valid = m < g.pixels();
  const int hw = g.h * g.w;
  int b = 0, oy = 0, ox = 0;
  if (pixel_valid) {
    b = static_cast<int>(m / hw);
    const int p = static_cast<int>(m - std::int64_t{b} * hw);
    oy = p / g.w;
    ox = p - oy * g.w;
  }
  const float* image = x + std::int64_t{b} * g.cin * hw;
  const int k_size = g.cin * 9;
  // Not unrolled: unrolled, the 16 gathers' addresses did not fit 128 registers (nvcc 13.0).
#pragma unroll 1
  for (int i = 0; i < gemm::kBK / 2; ++i) {
    const int kk = kk0 + 2 * i;
    const int k = static_cast<int>(k0) + kk;
    const int ci = k / 9;
    const int tap = k - ci * 9;
    const int ky = tap / 3;
    const int iy = oy + ky - 1;
    const int ix = ox + (tap - ky * 3) - 1;
    const bool valid = pixel_valid && k < k_size && iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
    const float* src = valid ? image + (std::int64_t{ci} * g.h + iy) * g.w + ix : x;
    gemm::cp_async_zfill<4>(stage + gemm::RowsContiguous<gemm::kBM>::offset(r, kk), src, valid);
  }
}

// Splits a GEMM row m (a pixel) into its image and its offset oy * W + ox in a channel plane.
__device__ __forceinline__ void pixel_of(const Geometry& g, std::int64_t m, std::int64_t& image,
                                         std::int64_t& offset) {
  const std::int64_t hw = std::int64_t{g.h} * g.w;
  image = m / hw;
  offset = m - image * hw;
}

// The GEMM problem of a convolution of x by w [Cout, Cin, 3, 3] whose output element
// (image, channel, offset) is written by epilogue(image, channel, offset, acc), with kBN output
// channels per block (64 when Cout <= 64, else 128). kVecB: 16-byte copies of the weights
// (Cin % 4 == 0 and w 16-byte aligned).
template <int kBNChannels, int kVecB, class Epilogue>
struct Problem {
  static constexpr int kBN = kBNChannels;
  static constexpr int kNumB = 1;
  // 64-channel tiles fit 128 registers (two blocks per SM); 128-channel tiles spilled there
  // (nvcc 13.0), so they run one block per SM.
  static constexpr int kMinBlocksPerSM = kBNChannels == 64 ? 2 : 1;
  using ALayout = gemm::RowsContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;

  const float* x;
  const float* w;
  Geometry g;
  Epilogue epilogue;
  std::int64_t m, n, k;

  Problem(const float* x_, const float* w_, const Geometry& g_, const Epilogue& e)
      : x(x_), w(w_), g(g_), epilogue(e), m(g_.pixels()), n(g_.cout), k(g_.taps()) {}

  __device__ void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    load_im2col(stage, x, g, m0, k0);
  }
  __device__ void load_b(int, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVecB>(stage, w, n, k, k, n0, k0);
  }
  __device__ void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    std::int64_t image, offset;
    pixel_of(g, row, image, offset);
    epilogue(image, col, offset, acc[0]);
  }
};

#if !defined(RKT_CUDA_EMULATION)
// Launches the convolution with the block width and weight copies that suit g and w.
template <class Epilogue>
cudaError_t launch(const float* x, const float* w, const Geometry& g, const Epilogue& epilogue,
                   cudaStream_t stream) {
  const bool vector_b = g.cin % 4 == 0 && reinterpret_cast<std::uintptr_t>(w) % 16 == 0;
  if (g.cout <= 64) {
    return vector_b ? gemm::launch_tf32x3_gemm(Problem<64, 4, Epilogue>(x, w, g, epilogue), stream)
                    : gemm::launch_tf32x3_gemm(Problem<64, 1, Epilogue>(x, w, g, epilogue), stream);
  }
  return vector_b ? gemm::launch_tf32x3_gemm(Problem<128, 4, Epilogue>(x, w, g, epilogue), stream)
                  : gemm::launch_tf32x3_gemm(Problem<128, 1, Epilogue>(x, w, g, epilogue), stream);
}
#endif  // !RKT_CUDA_EMULATION

}  // namespace rkt::cuda_kernels::conv3x3
