// A CPU kernel for this project's own l2_normalize task (l2_normalize_task.cpp): per row, the
// sum of squares in double (rows of mixed magnitudes lose their small elements in float), then
// one scaled write. Light headers only.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void l2_normalize_rows(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const float* in = x.data_as<const float>();
  float* out = call.output(0).data_as<float>();
  const std::int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * n;
    double sum_of_squares = 0;
    for (std::int64_t j = 0; j < n; ++j) sum_of_squares += double(row[j]) * row[j];
    const double inverse_norm = 1.0 / std::max(std::sqrt(sum_of_squares), 1e-12);
    for (std::int64_t j = 0; j < n; ++j) out[r * n + j] = static_cast<float>(row[j] * inverse_norm);
  }
}

}  // namespace

ROBUST_KERNEL_TEST(l2_normalize, cpu_rows, l2_normalize_rows)
    .describe("example project: own task; double sum of squares per row");
