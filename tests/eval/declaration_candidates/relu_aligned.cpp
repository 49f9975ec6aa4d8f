// An honest relu that declares 16-byte aligned buffers (requires_alignment): allowed from an
// untrusted file, since it only sets how far the misaligned case shifts the buffers. Must pass
// without --allow-declarations.
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

ROBUST_KERNEL_TEST(relu, declares_alignment, relu_loop).describe("honest, aligned").requires_alignment(16);
