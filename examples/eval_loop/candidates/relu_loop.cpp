// Candidate 1: the plain loop, one element at a time.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_loop(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, loop, relu_loop).describe("one element at a time");
