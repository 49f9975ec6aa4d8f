// relu: y = max(x, 0) elementwise over all B*N elements with a 64-bit grid-stride loop
// (one element per thread per step, coalesced). NaN inputs propagate as NaN, like torch.relu.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 65535;

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float v = x[i];
    y[i] = (v > 0.0f || v != v) ? v : 0.0f;  // keeps NaN, maps negatives (and -0) to +0
  }
}

void relu_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t n = x.numel();
  if (n == 0) return;
  const std::int64_t blocks = std::min<std::int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks);
  relu_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x.data_as<const float>(),
                                                                      y.data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cuda_grid_stride, relu_cuda)
    .describe("Elementwise max(x, 0) with a 64-bit grid-stride loop");
