// Edge adversaries: softmax kernels that are right everywhere except where the row length N sits
// on one edge, the places where real kernel bugs live (a block-sized loop that skips short rows,
// a float4 path without a scalar tail, a warp reduction that assumes full warps, a buffer sized
// for the benchmark). Each is correct at the 37 x 300 CPU test shape unless its edge includes it,
// so only the shape property can catch it. tools/property_detection measures how often the
// default property does, over 100 seeds (docs/property_detection.md); adversary_test.cpp checks
// that each is caught with one seed. edge_honest is the control: the same code without a bug.
//
// The predicates are shared with the measurement tool (edge_bug_classes), so that what is
// measured is exactly what these kernels get wrong.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"
#include "tests/adversaries/edge_bug_classes.h"

namespace {

using rkt::testing::EdgeBugClass;

// Softmax over rows; when `wrong` holds for the row length, the last element of each row is left
// out of the normalising sum (a tail that the vector or block loop never reached).
void softmax_wrong_when(rkt::KernelCall& call, bool wrong) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t summed = wrong ? n - 1 : n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    double max = row[0];
    for (std::int64_t j = 1; j < n; ++j) max = std::fmax(max, row[j]);
    double sum = 0;
    for (std::int64_t j = 0; j < summed; ++j) sum += std::exp(row[j] - max);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = static_cast<float>(std::exp(row[j] - max) / sum);
  }
}

template <EdgeBugClass bug>
void softmax_edge_bug(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).size(1);
  softmax_wrong_when(call, rkt::testing::triggers(bug, n, rkt::testing::kCpuSoftmaxRowLength));
}

void softmax_honest(rkt::KernelCall& call) { softmax_wrong_when(call, false); }

}  // namespace

ROBUST_KERNEL_TEST(softmax, edge_below_512, softmax_edge_bug<EdgeBugClass::below_512>)
    .describe("drops each row's last element from the sum when N < 512 (a 512-thread block loop)");
ROBUST_KERNEL_TEST(softmax, edge_not_multiple_of_4, softmax_edge_bug<EdgeBugClass::not_multiple_of_4>)
    .describe("drops the last element when N % 4 != 0 (float4 loads without a scalar tail)");
ROBUST_KERNEL_TEST(softmax, edge_equals_1, softmax_edge_bug<EdgeBugClass::equals_1>)
    .describe("drops the only element when N == 1 (a loop that assumes two elements)");
ROBUST_KERNEL_TEST(softmax, edge_odd, softmax_edge_bug<EdgeBugClass::odd>)
    .describe("drops the last element when N is odd (pairwise float2 loads)");
ROBUST_KERNEL_TEST(softmax, edge_not_multiple_of_32, softmax_edge_bug<EdgeBugClass::not_multiple_of_32>)
    .describe("drops the last element when N % 32 != 0 (a warp loop without a tail)");
ROBUST_KERNEL_TEST(softmax, edge_above_1_5x_test, softmax_edge_bug<EdgeBugClass::above_1_5x_test>)
    .describe("drops the last element when N > 1.5 x 300 (a buffer sized for the test shape)");
ROBUST_KERNEL_TEST(softmax, edge_from_1024, softmax_edge_bug<EdgeBugClass::from_1024>)
    .describe("drops the last element when N >= 1024 (a second code path for long rows)");
ROBUST_KERNEL_TEST(softmax, edge_from_4096, softmax_edge_bug<EdgeBugClass::from_4096>)
    .describe("drops the last element when N >= 4096 (rows split across blocks)");
ROBUST_KERNEL_TEST(softmax, edge_honest, softmax_honest)
    .describe("the same loops without a bug: the control, which must pass every seed");
