// A kernel function ROBUST_KERNEL_TEST cannot take (not void(rkt::KernelCall&)). Must get status
// signature_mismatch.
#include "rkt/kernel.h"

namespace {

void relu_wrong_parameters(const float* x, float* y, int count) {
  for (int i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_signature_mismatch, relu_wrong_parameters);
