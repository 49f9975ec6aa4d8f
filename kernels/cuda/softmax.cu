// softmax: y = softmax(x) over the last dim of a [rows, n] fp32 matrix.
//
// Design: one block per row (grid-stride over rows), the row held in registers (row_cache.cuh):
// 16-byte loads when rows are aligned and n % 4 == 0, scalar loads otherwise. Block max over the
// registers, block sum of exp(x - max) (exp values kept in the registers), then y = e / sum
// written from them. x is read once and y written once: 8 bytes per element, the minimum
// (268 MB at the default 4096 x 8192, 0.064 ms at the measured 4.2 TB/s copy rate). Expected:
// about 85-90% of the copy bandwidth (run 8's three-pass version moved 35%).
// Rows longer than kMaxCachedRow (32768, the task's largest n) take the three-pass streaming
// kernel, which re-reads the row (from L2 for such rows).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 26-64 per variant (<4, 32>, the default shape's:
// 60), no spills; streaming kernel 22.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "row_reduction.cuh"

namespace {

using namespace rkt::cuda_kernels;

template <int kWidth, int kItems>
__global__ void __launch_bounds__(row_cache_max_threads<kItems>())
    softmax_cached_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t rows,
                          int n) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    float v[kItems];
    load_row_cache<kWidth, kItems>(x + row * n, n, v, -INFINITY);
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < kItems; ++j) m = fmaxf(m, v[j]);
    m = block_max(m, -INFINITY);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      v[j] = expf(v[j] - m);  // padding: exp(-inf) = 0
      s += v[j];
    }
    const float inv = 1.0f / block_sum(s);
#pragma unroll
    for (int j = 0; j < kItems; ++j) v[j] *= inv;
    store_row_cache<kWidth, kItems>(y + row * n, n, v);
  }
}

// Rows beyond the register cache: block max, block sum of exp, normalize (three reads).
__global__ void softmax_streaming_kernel(const float* __restrict__ x, float* __restrict__ y,
                                         std::int64_t rows, std::int64_t cols) {
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * cols;
    float* yr = y + row * cols;
    const RowMaxSumExp r = block_row_max_sum_exp(xr, cols);
    const float inv = 1.0f / r.sum_exp;
    for (std::int64_t j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = expf(xr[j] - r.max) * inv;
  }
}

void softmax_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  if (rows == 0 || cols == 0) return;
  const float* xp = x.data_as<const float>();
  float* yp = y.data_as<float>();
  const unsigned blocks = static_cast<unsigned>(std::min(rows, kMaxRowBlocks));
  if (cols > kMaxCachedRow) {
    softmax_streaming_kernel<<<blocks, row_block_threads(cols), 0, stream>>>(xp, yp, rows, cols);
  } else {
    const RowCacheShape shape = choose_row_cache(cols, is_aligned16(xp) && is_aligned16(yp));
    dispatch_row_cache(shape, [&](auto width, auto items) {
      softmax_cached_kernel<decltype(width)::value, decltype(items)::value>
          <<<blocks, shape.threads, 0, stream>>>(xp, yp, rows, static_cast<int>(cols));
    });
  }
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cuda_rowwise, softmax_cuda)
    .describe(
        "One block per row, row cached in registers (float4 loads): max, sum of exp, "
        "normalize; one read, one write");
