// attention_causal_<DT>_backward (DT = bf16, fp16): grad_q, grad_k, grad_v of causal attention
// o = softmax(q k^T / sqrt(D) + causal mask) v, given q [B, H, S, D], k, v [B, G, S, D] and
// grad_o [B, H, S, D], grouped-query heads.
//
// Design: flash_attention_backward.cuh (FlashAttention-2's backward on mma.sync.m16n8k16 with
// fp32 accumulators, P recomputed per 64 x 64 tile from the row's max and log-sum, never stored):
// kernel 1 per 64 queries computes each row's max, log-sum and delta = sum_j P dP (pass 1), then
// grad_q (pass 2); kernel 2 per 64 keys of a kv head computes grad_k and grad_v, summing the
// group's query heads inside the block in a fixed order (deterministic, no float atomics). Any S
// (tail tiles masked and zero-filled), head dims 64 and 128, G dividing H; 2-byte staging when a
// buffer is not 16-byte aligned. The row statistics live in fp32 scratch (12 B H S bytes) taken
// with cudaMallocAsync on the call's stream and freed on it before returning.
// Work: about 9 B H S^2 D flops (the fused FlashAttention-2 backward needs 5: this one recomputes
// S and dP in the statistics pass and again in the grad_q pass, the price of no atomics). Not
// measured: written without device time, so no speed is claimed; it is the honest
// fp32-accumulating tensor-core control, checked on the CPU by
// tests/kernel_emulation/flash_attention_backward_emulation_test.cpp.
// Claimed precision: fp32 (the default): fp32 arithmetic and accumulation on DT storage; P and dS
// are rounded to DT to feed the tensor cores, as every flash kernel does with P.
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "flash_attention_backward.cuh"
#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

namespace backward = rkt::cuda_kernels::flash_backward;
namespace flash = rkt::cuda_kernels::flash;
namespace lp = rkt::cuda_kernels::low_precision;

template <class Format>
void attention_causal_backward_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& q = call.input(0);
  const rkt::TensorView& k = call.input(1);
  const rkt::TensorView& v = call.input(2);
  const rkt::TensorView& grad_o = call.input(3);
  const rkt::TensorView& grad_q = call.output(0);
  const rkt::TensorView& grad_k = call.output(1);
  const rkt::TensorView& grad_v = call.output(2);
  if (q.rank != 4 || k.rank != 4 || v.rank != 4 || grad_o.rank != 4 || grad_q.rank != 4 ||
      grad_k.rank != 4 || grad_v.rank != 4) {
    throw std::invalid_argument(
        "attention backward cuda_flash_backward: q, k, v, grad_o and the gradients must be "
        "[B, heads, S, D]");
  }
  const std::int64_t batch = q.size(0);
  const std::int64_t heads = q.size(1);
  const std::int64_t seq = q.size(2);
  const std::int64_t dim = q.size(3);
  const std::int64_t kv_heads = k.size(1);
  if (kv_heads <= 0 || heads % kv_heads != 0) {
    throw std::invalid_argument("attention backward cuda_flash_backward: H (" +
                                std::to_string(heads) + ") must be a multiple of G (" +
                                std::to_string(kv_heads) + ")");
  }
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  if (batch == 0 || seq == 0 || dim == 0) return;  // every output is empty
  if (heads == 0) {
    // No query head reads the kv heads: their gradients are zero (for any D).
    const std::size_t kv_bytes =
        static_cast<std::size_t>(batch * kv_heads * seq * dim) * sizeof(std::uint16_t);
    RKT_CUDA_CHECK(cudaMemsetAsync(grad_k.data_as<std::uint16_t>(), 0, kv_bytes, stream));
    RKT_CUDA_CHECK(cudaMemsetAsync(grad_v.data_as<std::uint16_t>(), 0, kv_bytes, stream));
    return;
  }
  if (dim != 64 && dim != 128) {
    throw std::invalid_argument("attention backward cuda_flash_backward: head dim D = " +
                                std::to_string(dim) + " is not supported (64 or 128)");
  }

  // The row max, the row log-sum, then delta, one float each per query row.
  const std::size_t rows = static_cast<std::size_t>(batch * heads * seq);
  float* statistics = nullptr;
  RKT_CUDA_CHECK(
      cudaMallocAsync(reinterpret_cast<void**>(&statistics), 3 * rows * sizeof(float), stream));
  const backward::Params p{q.data_as<const std::uint16_t>(),
                           k.data_as<const std::uint16_t>(),
                           v.data_as<const std::uint16_t>(),
                           grad_o.data_as<const std::uint16_t>(),
                           grad_q.data_as<std::uint16_t>(),
                           grad_k.data_as<std::uint16_t>(),
                           grad_v.data_as<std::uint16_t>(),
                           statistics,
                           statistics + rows,
                           statistics + 2 * rows,
                           batch,
                           heads,
                           kv_heads,
                           seq,
                           1.0f / std::sqrt(static_cast<float>(dim)),
                           flash::kLog2e / std::sqrt(static_cast<float>(dim))};
  const cudaError_t launch_status =
      dim == 64 ? backward::launch_flash_attention_backward<Format, 64>(p, stream)
                : backward::launch_flash_attention_backward<Format, 128>(p, stream);
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = cudaFreeAsync(statistics, stream);
  RKT_CUDA_CHECK(launch_status);
  RKT_CUDA_CHECK(free_status);
}

constexpr const char* kDescription =
    "FlashAttention-2-style backward: mma.sync m16n8k16 (fp32 accumulators), P recomputed per "
    "64x64 tile from the row log-sum-exp; a query kernel (lse, delta, grad_q) and a key kernel "
    "(grad_k, grad_v, GQA heads summed in-block in a fixed order, no atomics), D 64/128, any S";

}  // namespace

ROBUST_KERNEL_TEST(attention_causal_bf16_backward, cuda_flash_backward,
                   attention_causal_backward_cuda<lp::Bf16Format>)
    .describe(kDescription);
ROBUST_KERNEL_TEST(attention_causal_fp16_backward, cuda_flash_backward,
                   attention_causal_backward_cuda<lp::Fp16Format>)
    .describe(kDescription);
