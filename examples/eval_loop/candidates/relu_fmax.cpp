// Candidate 3: std::fmax(x, 0). It differs from torch.relu on a NaN input (fmax returns 0, relu
// propagates NaN); the relu task draws no NaN, so the judge passes it: a verdict covers what the
// task's cases draw, which the report lists.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_fmax(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  for (std::int64_t i = 0; i < count; ++i) y[i] = std::fmax(x[i], 0.0f);
}

}  // namespace

ROBUST_KERNEL_TEST(relu, fmax, relu_fmax).describe("std::fmax(x, 0)");
