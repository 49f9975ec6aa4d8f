// An honest relu that claims tf32 on the fp32 task: not refused (a claim is judged by its own
// tolerance), but ranked only among kernels with the same claim, never above fp32 ones.
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

ROBUST_KERNEL_TEST(relu, claims_tf32, relu_loop).describe("honest, claims tf32").precision(rkt::Precision::tf32);
