// conv2d and rkb_unet_conv2d: y = conv2d(x, w, b), 3x3 kernel, stride 1, zero padding 1 (NCHW).
//
// Design: an implicit GEMM on the tensor cores (conv3x3_gemm.cuh over tf32x3_gemm.cuh, 3xTF32
// mma.sync): M = B*H*W output pixels, N = Cout, K = Cin*9; the input patches are gathered into
// shared memory by cp.async straight from x (no im2col buffer), the weights are already the
// GEMM's n-major B, and the bias is added as each output is written (once, NCHW).
// Work: 2 B Cout H W Cin 9 flops (9.7 GFLOP at conv2d's default 16 x 64 -> 128 x 64 x 64; 1.2 GFLOP
// at unet_conv2d's 16 x 64 -> 64 x 32 x 32). Expected: 50-70 TFLOP/s of fp32-accurate results
// (about 0.15-0.2 ms for conv2d): several times the direct fp32 kernel it replaces (0.98 ms) and
// faster than cuDNN fp32, but slower than cuDNN with TF32 (0.12 ms in run 8) for the reason
// matmul.cu gives (a single TF32 product fails the tf32 tolerance). unet_conv2d's 128 M-tiles
// leave part of the GPU idle. Claimed precision: tf32 (measured error close to fp32's).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 95 / 117 (64-channel tiles, 16- / 4-byte weight
// copies, two blocks per SM), 143 / 187 (128-channel tiles, one block per SM); no spills.
#include <cuda_runtime.h>

#include <cstdint>

#include "conv3x3_gemm.cuh"
#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

namespace conv3x3 = rkt::cuda_kernels::conv3x3;

struct BiasEpilogue {
  const float* bias;
  float* y;
  int cout;
  std::int64_t plane;  // H * W
  __device__ void operator()(std::int64_t image, std::int64_t channel, std::int64_t offset,
                             float acc) const {
    y[(image * cout + channel) * plane + offset] = acc + bias[channel];
  }
};

void conv2d_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& w = call.input(1);
  const rkt::TensorView& b = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  if (y.numel() == 0) return;
  const conv3x3::Geometry g{static_cast<int>(x.size(0)), static_cast<int>(x.size(1)),
                            static_cast<int>(w.size(0)), static_cast<int>(x.size(2)),
                            static_cast<int>(x.size(3))};
  const BiasEpilogue epilogue{b.data_as<const float>(), y.data_as<float>(), g.cout,
                              std::int64_t{g.h} * g.w};
  RKT_CUDA_CHECK(
      conv3x3::launch(x.data_as<const float>(), w.data_as<const float>(), g, epilogue, stream));
}

}  // namespace

ROBUST_KERNEL_TEST(conv2d, cuda_implicit_gemm, conv2d_cuda)
    .precision(rkt::Precision::tf32)
    .describe(
        "Implicit-GEMM 3x3 conv on 3xTF32 tensor cores (cp.async patch gather), bias "
        "fused into the epilogue");
ROBUST_KERNEL_TEST(rkb_unet_conv2d, cuda_implicit_gemm, conv2d_cuda)
    .precision(rkt::Precision::tf32)
    .describe(
        "Implicit-GEMM 3x3 conv on 3xTF32 tensor cores (cp.async patch gather), bias "
        "fused into the epilogue");
