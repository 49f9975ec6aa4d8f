// relu: y = max(x, 0) elementwise over all B*N elements.
//
// Design: a grid-stride loop over 16-byte vectors (float4 load, float4 store) when x and y are
// 16-byte aligned, then a scalar loop over the n % 4 tail; everything scalar when unaligned.
// The grid is a few waves of 256-thread blocks (4 per SM's worth of SMs x 8), so each thread
// handles several vectors. NaN inputs propagate as NaN, like torch.relu.
// Traffic: 8 bytes per element (537 MB at 8192 x 8192, 0.127 ms at 4.2 TB/s). Expected: about
// 93-95% of the copy bandwidth (run 8's scalar version: 92%). Eager torch.relu is one
// elementwise kernel at the same limit (0.135 ms in run 8), so expect about 1.0x against it:
// an elementwise map cannot beat a copy.
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 26 (float4) / 32 (scalar), no spills.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 132 * 32;  // [blocks] a few waves on an H200 (132 SMs)

__device__ __forceinline__ float relu(float v) {
  return (v > 0.0f || v != v) ? v : 0.0f;  // keeps NaN, maps negatives (and -0) to +0
}

// Vectors [0, n / 4) when kVector, then the scalar elements [first_scalar, n).
template <bool kVector>
__global__ void __launch_bounds__(kThreads)
    relu_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::int64_t first_scalar = 0;
  if constexpr (kVector) {
    const std::int64_t vectors = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (std::int64_t i = tid; i < vectors; i += stride) {
      const float4 v = __ldg(x4 + i);
      y4[i] = make_float4(relu(v.x), relu(v.y), relu(v.z), relu(v.w));
    }
    first_scalar = vectors * 4;
  }
  for (std::int64_t i = first_scalar + tid; i < n; i += stride) y[i] = relu(x[i]);
}

void relu_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t n = x.numel();
  if (n == 0) return;
  const float* xp = x.data_as<const float>();
  float* yp = y.data_as<float>();
  const bool vector = rkt::cuda_kernels::is_aligned16(xp) && rkt::cuda_kernels::is_aligned16(yp);
  const std::int64_t per_block = vector ? 4 * kThreads : kThreads;
  const unsigned blocks =
      static_cast<unsigned>(std::min((n + per_block - 1) / per_block, kMaxBlocks));
  if (vector) {
    relu_kernel<true><<<blocks, kThreads, 0, stream>>>(xp, yp, n);
  } else {
    relu_kernel<false><<<blocks, kThreads, 0, stream>>>(xp, yp, n);
  }
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cuda_grid_stride, relu_cuda)
    .describe("Elementwise max(x, 0): float4 grid-stride loop, scalar tail");
