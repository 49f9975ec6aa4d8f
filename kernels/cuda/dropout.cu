// dropout: y = x * keep / 0.9 elementwise, with the keep mask (int32, 0 or 1) given as an input.
//
// Design: like relu.cu, a grid-stride loop over 16-byte vectors (float4 of x, int4 of keep,
// float4 of y) when all three are 16-byte aligned, then a scalar loop over the n % 4 tail.
// y = x * float(keep) * (1 / 0.9f): the mask value is used as a number (not as a boolean), so the
// kernel computes exactly the reference's formula, NaN and infinity included (x * 0 = NaN for
// x = inf, as in the reference). 1 / 0.9 in float differs from the reference's division by 0.9
// in float64 by about 1e-7 relative, far inside the fp32 tolerance.
// Traffic: 12 bytes per element (805 MB at 8192 x 8192, 0.19 ms at 4.2 TB/s). Expected: about
// 93% of the copy bandwidth. Eager PyTorch makes three passes (mask to float, multiply, divide);
// the compiled baseline fuses them into one at the same copy limit, so expect about 1.0x there.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 28 (vector) / 30 (scalar), no spills.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 132 * 32;  // [blocks] a few waves on an H200 (132 SMs)
constexpr float kInverseKeep = static_cast<float>(1.0 / 0.9);  // the task's keep probability

template <bool kVector>
__global__ void __launch_bounds__(kThreads)
    dropout_kernel(const float* __restrict__ x, const std::int32_t* __restrict__ keep,
                   float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::int64_t first_scalar = 0;
  if constexpr (kVector) {
    const std::int64_t vectors = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const int4* k4 = reinterpret_cast<const int4*>(keep);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (std::int64_t i = tid; i < vectors; i += stride) {
      const float4 v = __ldg(x4 + i);
      const int4 k = __ldg(k4 + i);
      y4[i] = make_float4(v.x * static_cast<float>(k.x) * kInverseKeep,
                          v.y * static_cast<float>(k.y) * kInverseKeep,
                          v.z * static_cast<float>(k.z) * kInverseKeep,
                          v.w * static_cast<float>(k.w) * kInverseKeep);
    }
    first_scalar = vectors * 4;
  }
  for (std::int64_t i = first_scalar + tid; i < n; i += stride)
    y[i] = x[i] * static_cast<float>(keep[i]) * kInverseKeep;
}

void dropout_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& keep = call.input(1);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t n = x.numel();
  if (n == 0) return;
  const float* xp = x.data_as<const float>();
  const std::int32_t* kp = keep.data_as<const std::int32_t>();
  float* yp = y.data_as<float>();
  using rkt::cuda_kernels::is_aligned16;
  const bool vector = is_aligned16(xp) && is_aligned16(kp) && is_aligned16(yp);
  const std::int64_t per_block = vector ? 4 * kThreads : kThreads;
  const unsigned blocks =
      static_cast<unsigned>(std::min((n + per_block - 1) / per_block, kMaxBlocks));
  if (vector) {
    dropout_kernel<true><<<blocks, kThreads, 0, stream>>>(xp, kp, yp, n);
  } else {
    dropout_kernel<false><<<blocks, kThreads, 0, stream>>>(xp, kp, yp, n);
  }
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(dropout, cuda_grid_stride, dropout_cuda)
    .describe("y = x * keep / 0.9 with the given mask: float4/int4 grid-stride loop, scalar tail");
