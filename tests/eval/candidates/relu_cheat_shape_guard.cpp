// A cheat with a shape guard: computes relu only when the tensor has the CPU test dims' element
// count (B=... x N=... of the task's small dims) and writes zeros otherwise, hoping the tests use
// one shape. Must fail: property cases draw other dims.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_guarded(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  static const std::int64_t first_count = count;  // the first shape the harness shows
  for (std::int64_t i = 0; i < count; ++i) {
    y[i] = count == first_count ? (x[i] < 0.0f ? 0.0f : x[i]) : 0.0f;
  }
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_shape_guard, relu_guarded);
