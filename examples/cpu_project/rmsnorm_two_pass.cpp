// A user's CPU kernel for the suite's rmsnorm task: y = x / sqrt(mean(x^2) + 1e-6) * weight over
// the last dim. Two passes per row: the mean of squares in double (a float sum over 8192
// elements drifts past the fp32 tolerance on the mixed-magnitude value family), then the scaled
// write. Light headers only: this file never sees LibTorch.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void rmsnorm_two_pass(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const float* in = x.data_as<const float>();
  const float* weight = call.input(1).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  const std::int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * n;
    double sum_of_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) sum_of_squares += double(row[j]) * row[j];
    const double inverse_rms = 1.0 / std::sqrt(sum_of_squares / double(n) + 1e-6);
    for (std::int64_t j = 0; j < n; ++j) {
      out[r * n + j] = static_cast<float>(row[j] * inverse_rms * weight[j]);
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cpu_two_pass, rmsnorm_two_pass)
    .describe("example project: two passes per row, sum of squares in double");
