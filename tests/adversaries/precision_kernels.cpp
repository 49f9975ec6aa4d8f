// Precision-class kernels: an honest tf32 matmul (inputs rounded to TF32, float32 sums) that must
// pass its class, and the same loop on bf16-rounded inputs claiming tf32, one class lower, that
// must fail it (framework/comparison/derived_tolerance.h).
#include <cstdint>
#include <cstring>

#include "rkt/kernel.h"

namespace {

// `value` rounded to `bits` explicit mantissa bits, to nearest with ties to even (finite values).
float round_mantissa(float value, int bits) {
  std::uint32_t pattern;
  std::memcpy(&pattern, &value, sizeof pattern);
  const int dropped = 23 - bits;
  const std::uint32_t lowest_kept = (pattern >> dropped) & 1u;
  pattern = (pattern + ((1u << (dropped - 1)) - 1) + lowest_kept) & ~((1u << dropped) - 1);
  std::memcpy(&value, &pattern, sizeof value);
  return value;
}

template <int kMantissaBits>
void matmul_rounded_inputs(rkt::KernelCall& call) {
  const rkt::TensorView& a = call.input(0);
  const rkt::TensorView& b = call.input(1);
  const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const float* pa = a.data_as<const float>();
  const float* pb = b.data_as<const float>();
  float* c = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        sum += round_mantissa(pa[i * k + p], kMantissaBits) * round_mantissa(pb[p * n + j], kMantissaBits);
      }
      c[i * n + j] = sum;
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(matmul, tf32_loop, matmul_rounded_inputs<10>)
    .precision(rkt::Precision::tf32)
    .describe("inputs rounded to TF32 (to nearest), products summed one by one in float32");
ROBUST_KERNEL_TEST(matmul, bf16_claims_tf32, matmul_rounded_inputs<7>)
    .precision(rkt::Precision::tf32)
    .describe("inputs rounded to bf16 while claiming tf32: one class lower");
