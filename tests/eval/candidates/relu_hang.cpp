// Hangs: spins forever on small-magnitude inputs (the x0.01 distribution, some scale trials);
// correct otherwise. The supervisor's --timeout kills it: must fail with a crashed (hung) case.
#include <atomic>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

bool small_magnitude(const float* x, std::int64_t count) {
  float largest = 0.0f;
  for (std::int64_t i = 0; i < count && i < 64; ++i) largest = x[i] > largest ? x[i] : (-x[i] > largest ? -x[i] : largest);
  return count > 0 && largest < 0.2f;
}

void relu_spinning(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  std::atomic<bool> done{!small_magnitude(x, count)};
  while (!done.load()) {
  }
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_hang, relu_spinning);
