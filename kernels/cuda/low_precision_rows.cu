// softmax_<DT>, layernorm_<DT>, rmsnorm_<DT>, cross_entropy_<DT> (DT = bf16, fp16): the row-wise
// kernels of low_precision_rows.cuh, registered as cuda_rowwise.
//
// Design: one block per row, the row cached in registers as fp32 (16-byte loads of 8 elements
// when aligned, 2-byte loads otherwise), block reductions over the registers, one rounding to DT
// at the store; rows past 32768 elements stream (re-read). cross_entropy: one online-logsumexp
// pass per row, fp32 loss per row. Traffic: 4 bytes per element (softmax, norms), 2 bytes per
// logit (cross_entropy). Measured on the H200: 67-91% of the 4.0 TB/s copy bandwidth, 1.3-3.2x
// PyTorch eager (numbers in low_precision_rows.cuh).
// Claimed precision: fp32 (the default): fp32 arithmetic and accumulation on DT storage.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "low_precision_rows.cuh"
#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

namespace rows = rkt::cuda_kernels::low_precision_rows;
namespace lp = rkt::cuda_kernels::low_precision;

cudaStream_t stream_of(const rkt::KernelCall& call) {
  return static_cast<cudaStream_t>(call.cuda_stream());
}

void require_matrix(const rkt::TensorView& x, const char* what) {
  if (x.rank != 2) throw std::invalid_argument(std::string(what) + ": x must be [B, N]");
}

template <class Format>
void softmax_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  require_matrix(x, "softmax cuda_rowwise");
  if (x.size(0) == 0 || x.size(1) == 0) return;
  RKT_CUDA_CHECK(rows::launch_softmax<Format>(x.data_as<const std::uint16_t>(),
                                              call.output(0).data_as<std::uint16_t>(), x.size(0),
                                              x.size(1), stream_of(call)));
}

template <class Format>
void layernorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  require_matrix(x, "layernorm cuda_rowwise");
  if (x.size(0) == 0 || x.size(1) == 0) return;
  RKT_CUDA_CHECK((rows::launch_norm<Format, false>(
      x.data_as<const std::uint16_t>(), call.input(1).data_as<const std::uint16_t>(),
      call.input(2).data_as<const std::uint16_t>(), call.output(0).data_as<std::uint16_t>(),
      x.size(0), x.size(1), stream_of(call))));
}

template <class Format>
void rmsnorm_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  require_matrix(x, "rmsnorm cuda_rowwise");
  if (x.size(0) == 0 || x.size(1) == 0) return;
  RKT_CUDA_CHECK((rows::launch_norm<Format, true>(
      x.data_as<const std::uint16_t>(), call.input(1).data_as<const std::uint16_t>(), nullptr,
      call.output(0).data_as<std::uint16_t>(), x.size(0), x.size(1), stream_of(call))));
}

template <class Format>
void cross_entropy_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& logits = call.input(0);
  require_matrix(logits, "cross_entropy cuda_rowwise");
  if (logits.size(0) == 0) return;
  if (logits.size(1) == 0) throw std::invalid_argument("cross_entropy cuda_rowwise: V is 0");
  RKT_CUDA_CHECK(rows::launch_cross_entropy<Format>(
      logits.data_as<const std::uint16_t>(), call.input(1).data_as<const std::int64_t>(),
      call.output(0).data_as<float>(), logits.size(0), logits.size(1), stream_of(call)));
}

}  // namespace

ROBUST_KERNEL_TEST(softmax_bf16, cuda_rowwise, softmax_cuda<lp::Bf16Format>)
    .describe(
        "One block per row, row cached in registers as fp32 (16-byte loads): max, sum of exp, "
        "normalize; one read, one write");
ROBUST_KERNEL_TEST(softmax_fp16, cuda_rowwise, softmax_cuda<lp::Fp16Format>)
    .describe(
        "One block per row, row cached in registers as fp32 (16-byte loads): max, sum of exp, "
        "normalize; one read, one write");
ROBUST_KERNEL_TEST(layernorm_bf16, cuda_rowwise, layernorm_cuda<lp::Bf16Format>)
    .describe(
        "One block per row, row cached in registers as fp32: two-pass mean and variance, affine "
        "normalize");
ROBUST_KERNEL_TEST(layernorm_fp16, cuda_rowwise, layernorm_cuda<lp::Fp16Format>)
    .describe(
        "One block per row, row cached in registers as fp32: two-pass mean and variance, affine "
        "normalize");
ROBUST_KERNEL_TEST(rmsnorm_bf16, cuda_rowwise, rmsnorm_cuda<lp::Bf16Format>)
    .describe(
        "One block per row, row cached in registers as fp32: mean of squares, scale by weight");
ROBUST_KERNEL_TEST(rmsnorm_fp16, cuda_rowwise, rmsnorm_cuda<lp::Fp16Format>)
    .describe(
        "One block per row, row cached in registers as fp32: mean of squares, scale by weight");
ROBUST_KERNEL_TEST(cross_entropy_bf16, cuda_rowwise, cross_entropy_cuda<lp::Bf16Format>)
    .describe(
        "One block per row, one pass with an online logsumexp in fp32 (16-byte loads), fp32 loss "
        "per row");
ROBUST_KERNEL_TEST(cross_entropy_fp16, cuda_rowwise, cross_entropy_cuda<lp::Fp16Format>)
    .describe(
        "One block per row, one pass with an online logsumexp in fp32 (16-byte loads), fp32 loss "
        "per row");
