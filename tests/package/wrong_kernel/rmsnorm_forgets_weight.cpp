// rmsnorm without its weight: right only where the weight is 1, which the task's weights
// (N(1, 0.1)) never are. Its correctness cases must fail.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void rmsnorm_forgets_weight(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const float* in = x.data_as<const float>();
  float* out = call.output(0).data_as<float>();
  const std::int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum_of_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) sum_of_squares += double(in[r * n + j]) * in[r * n + j];
    const double inverse_rms = 1.0 / std::sqrt(sum_of_squares / double(n) + 1e-6);
    for (std::int64_t j = 0; j < n; ++j) out[r * n + j] = float(in[r * n + j] * inverse_rms);
  }
}

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cpu_forgets_weight, rmsnorm_forgets_weight)
    .describe("wrong on purpose: ignores the weight");
