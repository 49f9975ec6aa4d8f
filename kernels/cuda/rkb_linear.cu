// rkb_mnist_linear, rkb_mnist_linear_relu, rkb_unet_linear: y = x @ weights^T + biases (then
// ReLU for mnist_linear_relu), x of any rank with K = its last dim, weights [N, K], biases [N].
//
// Design: tf32x3_gemm.cuh with M = x.numel() / K rows. Both operands are k-contiguous (weights
// are stored n-major, [N, K], which is exactly the layout the B fragments want). The bias add and
// the ReLU are fused into the epilogue: y is written once from the accumulators, where eager
// PyTorch runs addmm and then a separate ReLU pass over y (another read and write of y).
// 16-byte copies when K % 4 == 0 and x, weights are 16-byte aligned; 4-byte copies otherwise.
// Work: 2 M N K flops. At robust-kbench's default sizes (64 x 128 x 10) the call is one block
// and launch-bound (a few microseconds); unet_linear (16384 x 1024 x 1024, 34 GFLOP) is
// compute-bound at the 3xTF32 rate (expected 60-80 TFLOP/s, about 0.5 ms): slower than eager
// TF32 (cuBLAS, one TF32 product per MMA), for the reason matmul.cu gives (one TF32 product
// fails the tf32 tolerance). Claimed precision: tf32 (measured error close to fp32's).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 128 with 16-byte copies (two blocks per SM; 4 bytes
// of spill), 232 with 4-byte copies (one block per SM, no spills).
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "tf32x3_gemm.cuh"

namespace {

namespace gemm = rkt::cuda_kernels::gemm;

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
    float v = acc[0] + biases[col];
    if constexpr (kRelu) v = (v > 0.0f || v != v) ? v : 0.0f;  // NaN stays NaN, like torch.relu
    y[row * n + col] = v;
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
  const cudaError_t status =
      vector ? gemm::launch_tf32x3_gemm(LinearProblem<4, kRelu>{xp, wp, bp, yp, m, n, k}, stream)
             : gemm::launch_tf32x3_gemm(LinearProblem<1, kRelu>{xp, wp, bp, yp, m, n, k}, stream);
  RKT_CUDA_CHECK(status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_mnist_linear, cuda_tf32x3, linear_cuda<false>)
    .precision(rkt::Precision::tf32)
    .describe("3xTF32 tensor-core GEMM against n-major weights, bias fused into the epilogue");
ROBUST_KERNEL_TEST(rkb_mnist_linear_relu, cuda_tf32x3, linear_cuda<true>)
    .precision(rkt::Precision::tf32)
    .describe("3xTF32 tensor-core GEMM, bias and ReLU fused into the epilogue (one write of y)");
ROBUST_KERNEL_TEST(rkb_unet_linear, cuda_tf32x3, linear_cuda<false>)
    .precision(rkt::Precision::tf32)
    .describe("3xTF32 tensor-core GEMM over (B*T) rows, bias fused into the epilogue");
