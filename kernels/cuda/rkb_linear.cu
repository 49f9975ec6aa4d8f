// rkb_mnist_linear, rkb_mnist_linear_relu, rkb_unet_linear: y = x @ weights^T + biases (then
// ReLU for mnist_linear_relu), x of any rank with K = its last dim, weights [N, K], biases [N].
//
// Design: tf32x3_gemm.cuh with M = x.numel() / K rows. Both operands are k-contiguous (weights
// are stored n-major, [N, K], which is exactly the layout the B fragments want). The bias add and
// the ReLU are fused into the epilogue: y is written once from the accumulators, where eager
// PyTorch runs addmm and then a separate ReLU pass over y (another read and write of y).
// 16-byte copies when K % 4 == 0 and x, weights are 16-byte aligned; 4-byte copies otherwise.
// Small outputs (M * N <= kWarpDotMaxOutputs, e.g. robust-kbench's default 64 x 128 -> 10) skip
// the tiles: one warp per output element computes the dot product of an x row and a weight row
// (both k-contiguous: float4 loads when aligned), lanes' partial sums added by a fixed shuffle
// tree, then bias and ReLU; fp32 FMAs. A 128 x 128 tile would leave 640 of its 16384 outputs
// useful and walk K in 32-wide steps; the warps read each operand once and finish in about one
// memory round trip, so these calls are launch-bound (a few microseconds).
// Work: 2 M N K flops. unet_linear (16384 x 1024 x 1024, 34 GFLOP) is
// compute-bound at the 3xTF32 rate (expected 60-80 TFLOP/s, about 0.5 ms): slower than eager
// TF32 (cuBLAS, one TF32 product per MMA), for the reason matmul.cu gives (one TF32 product
// fails the tf32 tolerance). Claimed precision: tf32 (measured error close to fp32's).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): GEMM 128 with 16-byte copies (two blocks per SM; 16
// bytes of spill), 238 with 4-byte copies (one block per SM, no spills); warp-dot kernels 40-48,
// no spills.
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "tf32x3_gemm.cuh"

namespace {

namespace gemm = rkt::cuda_kernels::gemm;

constexpr std::int64_t kWarpDotMaxOutputs = 8192;  // [outputs] up to which a warp per output runs
constexpr int kWarpDotThreads = 256;

__device__ __forceinline__ float relu(float v) { return (v > 0.0f || v != v) ? v : 0.0f; }

// y[row, col] = x[row] . weights[col] + biases[col] (then ReLU), one warp per output.
template <int kVec, bool kRelu>
__global__ void __launch_bounds__(kWarpDotThreads)
    warp_dot_linear_kernel(const float* __restrict__ x, const float* __restrict__ weights,
                           const float* __restrict__ biases, float* __restrict__ y, std::int64_t m,
                           std::int64_t n, std::int64_t k) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (kWarpDotThreads / 32);
  for (std::int64_t out =
           static_cast<std::int64_t>(blockIdx.x) * (kWarpDotThreads / 32) + (threadIdx.x >> 5);
       out < m * n; out += warps) {
    const std::int64_t row = out / n;
    const std::int64_t col = out - row * n;
    const float* xr = x + row * k;
    const float* wr = weights + col * k;
    float sum = 0.0f;
    if constexpr (kVec == 4) {  // k % 4 == 0, rows 16-byte aligned
      for (std::int64_t e = 4 * lane; e < k; e += 4 * 32) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(xr + e));
        const float4 b = __ldg(reinterpret_cast<const float4*>(wr + e));
        sum = fmaf(a.x, b.x, sum);
        sum = fmaf(a.y, b.y, sum);
        sum = fmaf(a.z, b.z, sum);
        sum = fmaf(a.w, b.w, sum);
      }
    } else {
      for (std::int64_t e = lane; e < k; e += 32) sum = fmaf(__ldg(xr + e), __ldg(wr + e), sum);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) {
      const float v = sum + biases[col];
      y[out] = kRelu ? relu(v) : v;
    }
  }
}

template <int kVec, bool kRelu>
struct LinearProblem {
  static constexpr int kBN = 128;
  static constexpr int kNumB = 1;
  static constexpr int kMinBlocksPerSM = kVec == 4 ? 2 : 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;

  const float* x;
  const float* weights;
  const float* biases;
  float* y;
  std::int64_t m, n, k;

  __device__ void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, x, m, k, k, m0, k0);
  }
  __device__ void load_b(int, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVec>(stage, weights, n, k, k, n0, k0);
  }
  __device__ void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    const float v = acc[0] + biases[col];
    y[row * n + col] = kRelu ? relu(v) : v;  // NaN stays NaN, like torch.relu
  }
};

template <bool kRelu>
void linear_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& weights = call.input(1);
  const rkt::TensorView& biases = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t n = weights.size(0);
  const std::int64_t k = weights.size(1);
  const std::int64_t m = k > 0 ? x.numel() / k : y.numel() / (n > 0 ? n : 1);
  if (m == 0 || n == 0) return;
  const float* xp = x.data_as<const float>();
  const float* wp = weights.data_as<const float>();
  const float* bp = biases.data_as<const float>();
  float* yp = y.data_as<float>();
  using rkt::cuda_kernels::is_aligned16;
  const bool vector = k % 4 == 0 && is_aligned16(xp) && is_aligned16(wp);
  if (m * n <= kWarpDotMaxOutputs) {
    const unsigned blocks =
        static_cast<unsigned>((m * n + kWarpDotThreads / 32 - 1) / (kWarpDotThreads / 32));
    if (vector) {
      warp_dot_linear_kernel<4, kRelu>
          <<<blocks, kWarpDotThreads, 0, stream>>>(xp, wp, bp, yp, m, n, k);
    } else {
      warp_dot_linear_kernel<1, kRelu>
          <<<blocks, kWarpDotThreads, 0, stream>>>(xp, wp, bp, yp, m, n, k);
    }
    RKT_CUDA_CHECK_LAUNCH();
    return;
  }
  const cudaError_t status =
      vector ? gemm::launch_tf32x3_gemm(LinearProblem<4, kRelu>{xp, wp, bp, yp, m, n, k}, stream)
             : gemm::launch_tf32x3_gemm(LinearProblem<1, kRelu>{xp, wp, bp, yp, m, n, k}, stream);
  RKT_CUDA_CHECK(status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_mnist_linear, cuda_tf32x3, linear_cuda<false>)
    .precision(rkt::Precision::tf32)
    .describe(
        "3xTF32 tensor-core GEMM against n-major weights, bias fused into the epilogue; "
        "a warp per output for small outputs");
ROBUST_KERNEL_TEST(rkb_mnist_linear_relu, cuda_tf32x3, linear_cuda<true>)
    .precision(rkt::Precision::tf32)
    .describe(
        "3xTF32 tensor-core GEMM, bias and ReLU fused into the epilogue (one write of y); "
        "a warp per output for small outputs");
ROBUST_KERNEL_TEST(rkb_unet_linear, cuda_tf32x3, linear_cuda<false>)
    .precision(rkt::Precision::tf32)
    .describe("3xTF32 tensor-core GEMM over (B*T) rows, bias fused into the epilogue");
