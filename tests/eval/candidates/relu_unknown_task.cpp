// Registers against a task that does not exist ('rleu'). Must get status unknown_task with
// "did you mean 'relu'?".
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_loop(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.output(0).numel(); ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(rleu, eval_unknown_task, relu_loop);
