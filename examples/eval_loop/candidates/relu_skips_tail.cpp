// Candidate 4: blocks of 16 and no tail loop: wrong whenever the element count is not a multiple
// of 16. Must not be ranked.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_skips_tail(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  for (std::int64_t i = 0; i + 16 <= count; i += 16) {
    for (int j = 0; j < 16; ++j) y[i + j] = x[i + j] < 0.0f ? 0.0f : x[i + j];
  }
}

}  // namespace

ROBUST_KERNEL_TEST(relu, skips_tail, relu_skips_tail).describe("blocks of 16, tail forgotten");
