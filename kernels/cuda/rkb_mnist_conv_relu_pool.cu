// rkb_mnist_conv_relu_pool: y = max_pool2d(relu(conv2d(x, w, b)), 2) with a 3x3 kernel, stride 1,
// no padding (NCHW fp32): conv output Hc = H - 2, Wc = W - 2; pooled Ho = Hc / 2, Wo = Wc / 2.
//
// Design: one fused direct kernel, one thread per pooled output (b, co, py, px), a grid-stride
// loop in output order. Per input channel the thread reads its 4 x 4 input patch (the 2 x 2 conv
// outputs of its pool window share it) and the 9 weights of (co, ci) (the same for the whole
// warp: broadcast loads, cached), and accumulates the four conv outputs in fp32 FMAs in the order
// ci, ky, kx. Then y = relu(max of the four + bias): ReLU and the bias are monotone and common to
// the window, so this equals the pool of the ReLU of the biased conv, NaN included (any NaN in
// the window makes the max NaN). The conv output is never written: eager PyTorch writes and
// re-reads it twice (after the conv and after the ReLU) before pooling.
// Why direct, not the tensor-core implicit GEMM: K = Cin * 9 is 9 at the default size (at most
// 72 in the task's domain), far too short for MMA tiles; the kernel is memory- and launch-bound.
// Traffic: x read once per output channel (from L2; 200 KB at the default 64 x 1 x 28 x 28),
// y written once (1.4 MB at 32 output channels, 13 x 13). Claimed precision: fp32.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 32, no spills.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 132 * 32;  // [blocks] a few waves on an H200 (132 SMs)

__device__ __forceinline__ float nan_max(float a, float b) { return (b > a || b != b) ? b : a; }

__global__ void __launch_bounds__(kThreads)
    conv_relu_pool_kernel(const float* __restrict__ x, const float* __restrict__ w,
                          const float* __restrict__ bias, float* __restrict__ y, int batch, int cin,
                          int cout, int h, int wd, int ho, int wo) {
  const std::int64_t total = std::int64_t{batch} * cout * ho * wo;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const int px = static_cast<int>(i % wo);
    std::int64_t rest = i / wo;
    const int py = static_cast<int>(rest % ho);
    rest /= ho;
    const int co = static_cast<int>(rest % cout);
    const std::int64_t b = rest / cout;

    // Conv outputs (2py + dy, 2px + dx) read x rows 2py + dy + ky, columns 2px + dx + kx.
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int ci = 0; ci < cin; ++ci) {
      const float* plane = x + ((b * cin + ci) * h + 2 * py) * wd + 2 * px;
      const float* wk = w + (std::int64_t{co} * cin + ci) * 9;
      float patch[4][4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) patch[r][c] = __ldg(plane + r * wd + c);
#pragma unroll
      for (int ky = 0; ky < 3; ++ky) {
#pragma unroll
        for (int kx = 0; kx < 3; ++kx) {
          const float wv = __ldg(wk + ky * 3 + kx);
#pragma unroll
          for (int dy = 0; dy < 2; ++dy)
#pragma unroll
            for (int dx = 0; dx < 2; ++dx)
              acc[dy][dx] = fmaf(patch[dy + ky][dx + kx], wv, acc[dy][dx]);
        }
      }
    }
    const float m = nan_max(nan_max(acc[0][0], acc[0][1]), nan_max(acc[1][0], acc[1][1]));
    const float v = m + bias[co];
    y[i] = (v > 0.0f || v != v) ? v : 0.0f;
  }
}

void rkb_mnist_conv_relu_pool_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& w = call.input(1);
  const rkt::TensorView& b = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t total = y.numel();
  if (total == 0) return;
  const int h = static_cast<int>(x.size(2));
  const int wd = static_cast<int>(x.size(3));
  const unsigned blocks =
      static_cast<unsigned>(std::min((total + kThreads - 1) / kThreads, kMaxBlocks));
  conv_relu_pool_kernel<<<blocks, kThreads, 0, stream>>>(
      x.data_as<const float>(), w.data_as<const float>(), b.data_as<const float>(),
      y.data_as<float>(), static_cast<int>(x.size(0)), static_cast<int>(x.size(1)),
      static_cast<int>(w.size(0)), h, wd, (h - 2) / 2, (wd - 2) / 2);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_mnist_conv_relu_pool, cuda_fused, rkb_mnist_conv_relu_pool_cuda)
    .describe(
        "Fused direct 3x3 conv + bias + ReLU + 2x2 max pool, one thread per pooled output "
        "(fp32 FMA); the conv output never touches memory");
