// Candidate 2: blocks of 16 the compiler vectorises, then the tail one at a time. NaN propagates
// as in torch.relu (x < 0 is false for NaN, so NaN is kept).
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_blocked(rkt::KernelCall& call) {
  const float* __restrict__ x = call.input(0).data_as<const float>();
  float* __restrict__ y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  std::int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    for (int j = 0; j < 16; ++j) y[i + j] = x[i + j] < 0.0f ? 0.0f : x[i + j];
  }
  for (; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, blocked, relu_blocked).describe("blocks of 16, then the tail");
