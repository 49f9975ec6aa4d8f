// Example: a kernel that supports only some sizes, and says so (KernelSpec::supports).
// It reads each row four floats at a time and has no scalar tail, so it is right only when
// N % 4 == 0. Undeclared, that is a bug the shape property finds (N = 1, 2, 3, 5, ...); declared,
// property trials draw N from multiples of 4 only, the task's test and benchmark sizes must be
// multiples of 4 (a registration error names the kernel otherwise), and `rkt list`,
// results.json, report.md and report.html show "supports only N % 4 == 0".
// A declaration is data (a dim, a kind, a number), never code: it travels from the kernel
// library to the judge in the worker's description of the kernel.
#include <cmath>
#include <cstdint>

#include "rkt/kernel.h"

namespace {

struct Float4 {
  float v[4];
};

void softmax_by_fours(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* in = call.input(0).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto* row = reinterpret_cast<const Float4*>(in + r * n);
    const std::int64_t quads = n / 4;  // No tail: the declared domain is N % 4 == 0.
    double max = row[0].v[0];
    for (std::int64_t q = 0; q < quads; ++q) {
      for (float value : row[q].v) max = std::fmax(max, value);
    }
    double sum = 0;
    for (std::int64_t q = 0; q < quads; ++q) {
      for (float value : row[q].v) sum += std::exp(value - max);
    }
    for (std::int64_t j = 0; j < 4 * quads; ++j) {
      out[r * n + j] = static_cast<float>(std::exp(in[r * n + j] - max) / sum);
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, cpu_by_fours_example, softmax_by_fours)
    .describe("example: softmax reading float4s without a tail; declares N % 4 == 0")
    .supports("N % 4 == 0");
