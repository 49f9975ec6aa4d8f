// A kernel without a ROBUST_KERNEL_TEST line. Must get status no_registration.
#include <cstdint>

#include "rkt/kernel.h"

void relu_loop(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.output(0).numel(); ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}
