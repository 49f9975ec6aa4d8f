// Kernels for the users' properties of tests/adversaries/user_properties.cpp (judge side): one
// that a property catches, one that passes it. The properties are code and run in the judge;
// these kernels run in the worker like every other.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kTile = 96;  // [elements] the kernels' row tile

// Softmax over rows, summing each row tile by tile. With `tail_bug`, a last tile one element
// short of full (N % 96 == 95) is left out of the sum: a bug the default shape property rarely
// reaches (few N sit there) and a property drawing around multiples of 96 finds at once.
template <bool tail_bug>
void tiled_softmax(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    double max = row[0];
    for (std::int64_t j = 1; j < n; ++j) max = std::fmax(max, row[j]);
    double sum = 0;
    for (std::int64_t start = 0; start < n; start += kTile) {
      const std::int64_t end = std::min(n, start + kTile);
      if (tail_bug && end - start == kTile - 1) continue;
      for (std::int64_t j = start; j < end; ++j) sum += std::exp(row[j] - max);
    }
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = static_cast<float>(std::exp(row[j] - max) / sum);
  }
}

// Softmax that, when a row's maximum occurs more than once, counts the maximum once only in the
// sum (a "first argmax" shortcut): rows of real-valued noise never tie, rows of small integers do.
void softmax_ties_counted_once(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    float max = row[0];
    for (std::int64_t j = 1; j < n; ++j) max = std::fmax(max, row[j]);
    double sum = 0;
    bool max_seen = false;
    for (std::int64_t j = 0; j < n; ++j) {
      if (row[j] == max && max_seen) continue;
      max_seen = max_seen || row[j] == max;
      sum += std::exp(static_cast<double>(row[j]) - max);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      y[r * n + j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - max) / sum);
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, tile96_tail_bug, tiled_softmax<true>)
    .describe("sums rows in 96-wide tiles and skips a last tile one short of full (N % 96 == 95)");
ROBUST_KERNEL_TEST(softmax, tile96_honest, tiled_softmax<false>)
    .describe("the same tiles without the bug: passes every property");
ROBUST_KERNEL_TEST(softmax, ties_counted_once, softmax_ties_counted_once)
    .describe("counts a row's maximum once in the sum when it occurs several times");
