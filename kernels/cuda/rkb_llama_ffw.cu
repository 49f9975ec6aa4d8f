// rkb_llama_ffw: y = (silu(x @ gate_proj^T) * (x @ up_proj^T)) @ down_proj^T, x [B, T, H],
// gate_proj and up_proj [U, H], down_proj [H, U], no biases (LLaMA's SwiGLU MLP).
//
// Design: two launches of tf32x3_gemm.cuh on the call's stream.
//   1. A dual GEMM over M = B*T rows: one block computes a 128 x 64 tile of both x @ gate^T and
//      x @ up^T from the same staged x tile (two B operands, two accumulator sets), and its
//      epilogue writes h = silu(g) * u = g / (1 + exp(-g)) * u into a scratch [M, U] buffer
//      (cudaMallocAsync on the stream). Eager PyTorch writes and re-reads g, u, silu(g) and the
//      product (four M x U tensors); here only h is written, once.
//   2. y = h @ down^T, a plain GEMM with K = U (down_proj is n-major, [H, U]).
// 16-byte copies when H and U are multiples of 4 and the operands are 16-byte aligned.
// Work: 6 M H U flops (5.8 TFLOP at the default 16 x 1024, H 4096, U 14336), compute-bound at
// the 3xTF32 rate: expected 60-80 TFLOP/s (about 75-95 ms), faster than eager fp32 (cuBLAS SIMT,
// about 51 TFLOP/s plus the elementwise passes) and slower than eager TF32 for the reason
// matmul.cu gives (one TF32 product fails the tf32 tolerance). Scratch: 4 M U bytes (940 MB at
// the default size; the eager reference materialises several tensors of that size).
// Claimed precision: tf32 (measured error close to fp32's).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): with 16-byte copies (two blocks per SM) 125 for the
// gated GEMM (no spills) and 128 for the down GEMM (16 bytes of spill); 227 / 238 with 4-byte
// copies (one block per SM, no spills).
#include <cuda_runtime.h>

#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"
#include "row_cache.cuh"
#include "tf32x3_gemm.cuh"

namespace {

namespace gemm = rkt::cuda_kernels::gemm;

// h[m, u] = silu(x[m] . gate[u]) * (x[m] . up[u]).
template <int kVec>
struct GatedUpProblem {
  static constexpr int kBN = 64;
  static constexpr int kNumB = 2;
  static constexpr int kMinBlocksPerSM = kVec == 4 ? 2 : 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;

  const float* x;
  const float* gate;
  const float* up;
  float* h;
  std::int64_t m, n, k;  // n = U, k = H

  __device__ void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, x, m, k, k, m0, k0);
  }
  __device__ void load_b(int operand, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVec>(stage, operand == 0 ? gate : up, n, k, k, n0, k0);
  }
  __device__ void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    const float g = acc[0];
    h[row * n + col] = g / (1.0f + expf(-g)) * acc[1];  // g -> -inf: g / inf = -0
  }
};

// y[m, j] = h[m] . down[j].
template <int kVec>
struct DownProblem {
  static constexpr int kBN = 128;
  static constexpr int kNumB = 1;
  static constexpr int kMinBlocksPerSM = kVec == 4 ? 2 : 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;

  const float* h;
  const float* down;
  float* y;
  std::int64_t m, n, k;  // n = H, k = U

  __device__ void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, h, m, k, k, m0, k0);
  }
  __device__ void load_b(int, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVec>(stage, down, n, k, k, n0, k0);
  }
  __device__ void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    y[row * n + col] = acc[0];
  }
};

void rkb_llama_ffw_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& gate = call.input(1);
  const rkt::TensorView& up = call.input(2);
  const rkt::TensorView& down = call.input(3);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t u = gate.size(0);
  const std::int64_t hidden = gate.size(1);
  const std::int64_t m = y.numel() / (hidden > 0 ? hidden : 1);
  if (m == 0 || hidden == 0) return;
  const float* xp = x.data_as<const float>();
  const float* gp = gate.data_as<const float>();
  const float* upp = up.data_as<const float>();
  const float* dp = down.data_as<const float>();
  float* yp = y.data_as<float>();

  float* h = nullptr;
  if (u > 0) {
    RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&h),
                                   static_cast<std::size_t>(m * u) * sizeof(float), stream));
  }
  using rkt::cuda_kernels::is_aligned16;
  cudaError_t status = cudaSuccess;
  if (u > 0) {
    const bool vector =
        hidden % 4 == 0 && is_aligned16(xp) && is_aligned16(gp) && is_aligned16(upp);
    status =
        vector ? gemm::launch_tf32x3_gemm(GatedUpProblem<4>{xp, gp, upp, h, m, u, hidden}, stream)
               : gemm::launch_tf32x3_gemm(GatedUpProblem<1>{xp, gp, upp, h, m, u, hidden}, stream);
  }
  if (status == cudaSuccess) {
    // With U = 0 the down GEMM has K = 0 and writes zeros (h is never read).
    const float* hp = h != nullptr ? h : xp;
    const bool vector = u % 4 == 0 && is_aligned16(hp) && is_aligned16(dp);
    status = vector ? gemm::launch_tf32x3_gemm(DownProblem<4>{hp, dp, yp, m, hidden, u}, stream)
                    : gemm::launch_tf32x3_gemm(DownProblem<1>{hp, dp, yp, m, hidden, u}, stream);
  }
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = h != nullptr ? cudaFreeAsync(h, stream) : cudaSuccess;
  RKT_CUDA_CHECK(status);
  RKT_CUDA_CHECK(free_status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_llama_ffw, cuda_tf32x3, rkb_llama_ffw_cuda)
    .precision(rkt::Precision::tf32)
    .describe(
        "3xTF32 tensor cores: gate and up GEMMs in one kernel with silu(g) * u fused into "
        "its epilogue, then the down GEMM");
