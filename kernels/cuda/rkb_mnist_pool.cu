// rkb_mnist_pool: y = max_pool2d(x, 2) (window 2, stride 2, no padding; odd H or W drop their
// last row or column, like PyTorch) on an NCHW fp32 tensor.
//
// Design: one thread per output element, a grid-stride loop over B*C*Ho*Wo in output order
// (adjacent threads write adjacent outputs and read adjacent input pairs: coalesced). When W is
// even and x is 8-byte aligned, each window row is one 8-byte float2 load; otherwise two scalar
// loads. NaN propagates (a NaN anywhere in the window gives NaN, as PyTorch's max_pool2d does).
// Traffic: each input element read once, each output written once (16.1 MB at 64x64x28x28:
// 3.8 us at 4.2 TB/s, so at the default size the launch and the first-byte latency dominate;
// eager and compiled max_pool2d are one kernel each too: expect about 1.0x).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 32, no spills.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 132 * 32;  // [blocks] a few waves on an H200 (132 SMs)

__device__ __forceinline__ float nan_max(float a, float b) {
  return (b > a || b != b) ? b : a;  // a NaN in either wins (a NaN a stays: b > NaN is false)
}

template <bool kPairs>
__global__ void __launch_bounds__(kThreads)
    max_pool2_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t planes,
                     std::int64_t h, std::int64_t w, std::int64_t ho, std::int64_t wo) {
  const std::int64_t total = planes * ho * wo;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const std::int64_t ox = i % wo;
    const std::int64_t rest = i / wo;
    const std::int64_t oy = rest % ho;
    const std::int64_t plane = rest / ho;
    const float* top = x + (plane * h + 2 * oy) * w + 2 * ox;
    const float* bottom = top + w;
    float m;
    if constexpr (kPairs) {
      const float2 t = __ldg(reinterpret_cast<const float2*>(top));
      const float2 b = __ldg(reinterpret_cast<const float2*>(bottom));
      m = nan_max(nan_max(t.x, t.y), nan_max(b.x, b.y));
    } else {
      m = nan_max(nan_max(__ldg(top), __ldg(top + 1)), nan_max(__ldg(bottom), __ldg(bottom + 1)));
    }
    y[i] = m;
  }
}

void rkb_mnist_pool_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t planes = x.size(0) * x.size(1);
  const std::int64_t h = x.size(2);
  const std::int64_t w = x.size(3);
  const std::int64_t ho = h / 2;
  const std::int64_t wo = w / 2;
  const std::int64_t total = planes * ho * wo;
  if (total == 0) return;
  const float* xp = x.data_as<const float>();
  float* yp = y.data_as<float>();
  const bool pairs = w % 2 == 0 && reinterpret_cast<std::uintptr_t>(xp) % 8 == 0;
  const unsigned blocks =
      static_cast<unsigned>(std::min((total + kThreads - 1) / kThreads, kMaxBlocks));
  if (pairs) {
    max_pool2_kernel<true><<<blocks, kThreads, 0, stream>>>(xp, yp, planes, h, w, ho, wo);
  } else {
    max_pool2_kernel<false><<<blocks, kThreads, 0, stream>>>(xp, yp, planes, h, w, ho, wo);
  }
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_mnist_pool, cuda, rkb_mnist_pool_cuda)
    .describe("2x2 max pool, one thread per output, float2 window rows when W is even");
