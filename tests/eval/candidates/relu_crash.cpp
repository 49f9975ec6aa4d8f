// Crashes: writes to address 8 (a segmentation fault in the worker) on small-magnitude inputs (the
// x0.01 distribution, some scale trials); correct otherwise. Must fail with a crashed case, and
// must not touch the verdict of any other file in the same batch.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

bool small_magnitude(const float* x, std::int64_t count) {
  float largest = 0.0f;
  for (std::int64_t i = 0; i < count && i < 64; ++i) largest = x[i] > largest ? x[i] : (-x[i] > largest ? -x[i] : largest);
  return count > 0 && largest < 0.2f;
}

void relu_crashing(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  if (small_magnitude(x, count)) {
    volatile float* nowhere = reinterpret_cast<volatile float*>(std::uintptr_t{8});
    *nowhere = x[0];
  }
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_crash, relu_crashing);
