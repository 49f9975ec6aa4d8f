// Example: a kernel whose author knows where it could break, and says so with a property.
// The kernel (this file) goes into the kernel library, which only the sandboxed worker loads.
// The property is code the judge runs, so it lives in a judge-side file:
// user_property_checks.cpp, added to the suite with target_sources (see CMakeLists.txt beside).
//
// This softmax sums each row in 128-wide tiles, with a scalar loop for the last, partial tile:
// the place such kernels get wrong. The property draws N one element either side of every
// multiple of 128 up to 1024, where the default shape property only sometimes lands.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

constexpr std::int64_t kTile = 128;  // [elements] of a row summed together

void tiled_softmax(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const std::int64_t rows = x.size(0), n = x.size(1);
  const float* in = x.data_as<const float>();
  float* out = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * n;
    const double max = *std::max_element(row, row + n);
    double sum = 0;
    for (std::int64_t start = 0; start < n; start += kTile) {
      double tile_sum = 0;  // One tile's partial sum, as a block would reduce it.
      for (std::int64_t j = start; j < std::min(n, start + kTile); ++j) tile_sum += std::exp(row[j] - max);
      sum += tile_sum;
    }
    for (std::int64_t j = 0; j < n; ++j) out[r * n + j] = static_cast<float>(std::exp(row[j] - max) / sum);
  }
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cpu_tiled_example, tiled_softmax)
    .describe("example: softmax summed in 128-wide tiles, with its own property (user_tile_edges)");
