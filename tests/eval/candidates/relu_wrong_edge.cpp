// Wrong at an edge: unrolled by 8 with no tail loop, so the last N % 8 elements of a tensor whose
// size is not a multiple of 8 keep their poison. Must fail (a correctness case or a property
// whose dims are not multiples of 8).
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void relu_unrolled_without_tail(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t count = call.output(0).numel();
  for (std::int64_t i = 0; i + 8 <= count; i += 8) {
    for (int j = 0; j < 8; ++j) y[i + j] = x[i + j] < 0.0f ? 0.0f : x[i + j];
  }
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_wrong_edge, relu_unrolled_without_tail);
