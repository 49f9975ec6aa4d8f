// Kernels that declare the dims they support (KernelSpec::supports), and kernels whose
// declaration does not cover their bug. A restriction the kernel does not declare stays a
// failure; a declared one narrows the property's draws, never the judgement inside it.
//
// Each is a softmax over rows that leaves the last element of each row out of the normalising
// sum where its predicate holds (a float4 loop without a scalar tail, a tile that assumes a
// full block). At the CPU test shape (37 x 300) every one of them is correct, so only the shape
// property can tell them apart.
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "rkt/kernel.h"

namespace {

template <bool (*wrong_at)(std::int64_t n)>
void softmax_wrong_at(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const std::int64_t summed = wrong_at(n) ? n - 1 : n;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * n;
    double max = row[0];
    for (std::int64_t j = 1; j < n; ++j) max = std::fmax(max, row[j]);
    double sum = 0;
    for (std::int64_t j = 0; j < summed; ++j) sum += std::exp(row[j] - max);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = static_cast<float>(std::exp(row[j] - max) / sum);
  }
}

bool not_multiple_of_4(std::int64_t n) { return n % 4 != 0; }
bool multiple_of_4_below_256(std::int64_t n) { return n % 4 == 0 && n < 256; }
bool above_512(std::int64_t n) { return n > 512; }

}  // namespace

ROBUST_KERNEL_TEST(softmax, float4_no_tail_undeclared, softmax_wrong_at<not_multiple_of_4>)
    .describe("wrong when N % 4 != 0 and says nothing: the shape property must fail it");
ROBUST_KERNEL_TEST(softmax, float4_no_tail_declared, softmax_wrong_at<not_multiple_of_4>)
    .describe("the same kernel, declaring N % 4 == 0: tested on multiples of 4 only, passes")
    .supports("N % 4 == 0");
ROBUST_KERNEL_TEST(softmax, float4_declared_wrong_inside, softmax_wrong_at<multiple_of_4_below_256>)
    .describe("declares N % 4 == 0 but is wrong at multiples of 4 below 256: must still fail")
    .supports("N % 4 == 0");
ROBUST_KERNEL_TEST(softmax, domain_too_wide, softmax_wrong_at<not_multiple_of_4>)
    .describe("wrong when N % 4 != 0 but declares only N % 2 == 0: N = 2, 6, 10 ... must fail it")
    .supports_multiple_of("N", 2);
ROBUST_KERNEL_TEST(softmax, capped_declared, softmax_wrong_at<above_512>)
    .describe("wrong above N = 512 and declares N <= 512 (a shared-memory row cache): passes")
    .supports_max("N", 512);

namespace {

// Row sums that handle nothing but rows of a multiple of 64 (a 64-wide unrolled loop, no tail),
// and say so: an honest kernel with a narrow declared domain. Every case it gets (properties,
// relations, hidden inputs, integrity) must stay inside the domain, and it must pass them all.
void sum_dim_rows_of_64(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  if (n % 64 != 0) throw std::invalid_argument("sum_dim/rows_of_64_declared handles N % 64 == 0 only");
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    float lanes[64] = {};
    for (std::int64_t j = 0; j < n; j += 64) {
      for (int lane = 0; lane < 64; ++lane) lanes[lane] += x[r * n + j + lane];
    }
    double sum = 0;
    for (float lane : lanes) sum += lane;
    y[r] = static_cast<float>(sum);
  }
}

}  // namespace

ROBUST_KERNEL_TEST(sum_dim, rows_of_64_declared, sum_dim_rows_of_64)
    .describe("handles N % 64 == 0 only and declares it: every case stays inside, passes")
    .supports_multiple_of("N", 64);
