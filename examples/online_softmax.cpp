// Example: adding your own kernel. One file, one ROBUST_KERNEL_TEST line; the framework expands it
// into correctness cases under four input distributions, rapidcheck shape and scale properties,
// and a supervised process per kernel. Build with rkt_add_suite() (see CMakeLists.txt beside).
//
// This kernel computes softmax in one pass over the row for the max and the sum together
// ("online softmax"), then a second pass to write the output.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

void online_softmax(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const std::int64_t rows = x.size(0), n = x.size(1);
  const float* in = x.data_as<const float>();
  float* out = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * n;
    double running_max = -INFINITY, running_sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double value = row[j];
      if (value > running_max) {
        running_sum = running_sum * std::exp(running_max - value) + 1.0;
        running_max = value;
      } else {
        running_sum += std::exp(value - running_max);
      }
    }
    for (std::int64_t j = 0; j < n; ++j) {
      out[r * n + j] = static_cast<float>(std::exp(row[j] - running_max) / running_sum);
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cpu_online_example, online_softmax)
    .describe("example: online softmax (max and sum in one pass)");
