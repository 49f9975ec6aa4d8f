// A relu that memoises its output per input buffer and waives the replay gate "as a serving engine
// does". From an untrusted file the waiver is refused (declaration_refused); with
// --allow-declarations it is judged with the gate skipped, and never ranked beside honest kernels.
#include <cstdint>
#include <map>

#include "rkt/kernel.h"

namespace {

void relu_memoised(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, declares_waiver, relu_memoised)
    .describe("waives replay")
    .waive_gate(rkt::IntegrityGate::replay, "memoised per buffer, as a serving engine does");
