// Value-family adversaries (include/rkt/value_families.h): kernels right on KernelBench's scaled
// normal inputs and wrong once the values are shifted, mixed or repeated.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

// LayerNorm with the one-pass variance E[x^2] - E[x]^2 in float32: exact enough for inputs centred
// on zero, but it cancels catastrophically when the mean is far from zero next to the spread.
void layernorm_one_pass_variance(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  const float* b = call.input(2).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    float sum = 0, sum_of_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      sum += row[j];
      sum_of_squares += row[j] * row[j];
    }
    const float mean = sum / static_cast<float>(n);
    const float variance = std::fmax(sum_of_squares / static_cast<float>(n) - mean * mean, 0.0f);
    const float rstd = 1.0f / std::sqrt(variance + 1e-5f);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = (row[j] - mean) * rstd * w[j] + b[j];
  }
}

// The honest counterpart: Welford's running mean and sum of squared deviations, in float32.
void layernorm_welford(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  const float* b = call.input(2).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    float mean = 0, m2 = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const float delta = row[j] - mean;
      mean += delta / static_cast<float>(j + 1);
      m2 += delta * (row[j] - mean);
    }
    const float rstd = 1.0f / std::sqrt(m2 / static_cast<float>(n) + 1e-5f);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = (row[j] - mean) * rstd * w[j] + b[j];
  }
}

}  // namespace

ROBUST_KERNEL_TEST(layernorm, one_pass_variance, layernorm_one_pass_variance)
    .describe("variance as E[x^2] - E[x]^2 in float32: cancels when rows are offset from zero");
ROBUST_KERNEL_TEST(layernorm, welford, layernorm_welford)
    .describe("Welford's mean and variance in float32: the honest counterpart");
