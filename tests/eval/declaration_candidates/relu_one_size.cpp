// A relu hard-coded for one size, declaring that size as its whole domain (the CPU twin of issue
// 28's 8192 x 8192 one: the CPU tests relu at 37 x 300). Outside it it is wrong; inside it, right.
// From an untrusted file the narrowed domain is refused (declaration_refused); with
// --allow-declarations it is judged inside its domain, and ranked only among restricted kernels.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_37_by_300(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < 37 * 300; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, declares_one_size, relu_37_by_300)
    .describe("hard-coded for 37 x 300")
    .supports_min("B", 37)
    .supports_max("B", 37)
    .supports_min("N", 300)
    .supports_max("N", 300);
