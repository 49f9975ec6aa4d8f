// A kernel library that registers LibTorch dispatcher overrides for the operators its tasks'
// references use. In one process with the judge, the float64 reference would agree with the
// kernel; isolated, the overrides live only in the worker, and the judge's reference is untouched.
//   relu: aten::relu on the CPU returns zeros, and so does the kernel.
//   matmul (the subtler variant): aten::mm on the CPU rounds its operands to bfloat16 first, so a
//   kernel that quietly computes in bfloat16 while claiming fp32 would pass; the filter cannot see
//   it either, since the task itself is unchanged.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdint>
#include <cstring>

#include "rkt/kernel.h"

namespace {

at::Tensor zeros_like_input(const at::Tensor& x) { return at::zeros_like(x); }

// A product without aten::mm (which this library overrides): broadcast and sum.
at::Tensor bf16_rounded_mm(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor a_low = a.to(at::kBFloat16).to(a.scalar_type());
  const at::Tensor b_low = b.to(at::kBFloat16).to(b.scalar_type());
  return (a_low.unsqueeze(-1) * b_low.unsqueeze(0)).sum(1);
}

void writes_zeros(rkt::KernelCall& call) {
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.output(0).numel(); ++i) y[i] = 0;
}

float to_bfloat16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  bits &= 0xffff0000u;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

void bf16_matmul(rkt::KernelCall& call) {
  const rkt::TensorView &a = call.input(0), &b = call.input(1);
  const std::int64_t m_size = a.size(0), k_size = a.size(1), n_size = b.size(1);
  float* c = call.output(0).data_as<float>();
  for (std::int64_t m = 0; m < m_size; ++m) {
    for (std::int64_t n = 0; n < n_size; ++n) {
      double sum = 0;
      for (std::int64_t k = 0; k < k_size; ++k) {
        sum += static_cast<double>(to_bfloat16(a.data_as<float>()[m * k_size + k])) *
               to_bfloat16(b.data_as<float>()[k * n_size + n]);
      }
      c[m * n_size + n] = static_cast<float>(sum);
    }
  }
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CPU, library) {
  library.impl("relu", zeros_like_input);
  library.impl("mm", bf16_rounded_mm);
}

ROBUST_KERNEL_TEST(relu, override_reference_dispatch, writes_zeros)
    .describe("writes zeros and overrides aten::relu on the CPU to return zeros too");
ROBUST_KERNEL_TEST(matmul, lower_reference_precision, bf16_matmul)
    .describe("computes in bfloat16 claiming fp32, and overrides aten::mm to round to bfloat16");
