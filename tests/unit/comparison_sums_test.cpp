// The comparison kernel's arithmetic (comparison_sums.h) run on the host against the ATen
// operations check_output uses, and, on a GPU, the kernel itself against those operations.
#include "framework/comparison/comparison_sums.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "framework/comparison/output_comparison.h"
#include "framework/runtime/device_support.h"
#include "rkt/precision.h"

namespace rkt {
namespace {

const Tolerance kFp32 = default_tolerance(Precision::fp32);
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ComparedPair {
  std::string name;
  at::Tensor output;     // float32 unless the name says otherwise
  at::Tensor reference;  // float64
  double scale_floor = 0;
};

// Outputs near, far from and beside their references: every branch of add_element.
std::vector<ComparedPair> compared_pairs() {
  at::manual_seed(20261205);
  const at::Tensor reference = at::randn({1000}, at::kDouble);
  std::vector<ComparedPair> pairs;
  pairs.push_back({"within tolerance",
                   (reference + 1e-7 * at::randn({1000}, at::kDouble)).to(at::kFloat), reference});
  at::Tensor spread = (reference + 3e-4 * at::randn({1000}, at::kDouble)).to(at::kFloat);
  pairs.push_back({"errors spread everywhere", spread, reference});
  at::Tensor special = reference.to(at::kFloat);
  special[3] = kNaN;
  special[10] = kInf;
  special[11] = -kInf;
  special[500] = 1e30;
  pairs.push_back({"NaN, Inf and one far element", special, reference});
  at::Tensor special_reference = reference.clone();
  special_reference[7] = kNaN;
  special_reference[8] = kInf;
  pairs.push_back({"a reference with NaN and Inf", reference.to(at::kFloat), special_reference});
  pairs.push_back({"a zero reference", at::zeros({64}, at::kFloat), at::zeros({64}, at::kDouble)});
  pairs.push_back({"rounding noise under a scale floor",
                   (1e-16 * at::randn({64}, at::kDouble)).to(at::kFloat),
                   1e-16 * at::randn({64}, at::kDouble), 1.0});
  pairs.push_back({"half", reference.to(at::kHalf), reference});
  pairs.push_back({"bfloat16", reference.to(at::kBFloat16), reference});
  pairs.push_back({"double, off by a relative 1e-3", reference * 1.001, reference});
  pairs.push_back({"empty", at::zeros({0}, at::kFloat), at::zeros({0}, at::kDouble)});
  return pairs;
}

TEST(ComparisonSums, OnTheHostMatchTheTensorOperations) {
  for (const ComparedPair& pair : compared_pairs()) {
    SCOPED_TRACE(pair.name);
    const at::Tensor out = pair.output.to(at::kDouble);
    const double* output = out.data_ptr<double>();
    const double* reference = pair.reference.data_ptr<double>();
    const std::int64_t count = out.numel();
    comparison_sums::Sums first;
    for (std::int64_t i = 0; i < count; ++i) comparison_sums::add_reference(reference[i], first);
    const double own =
        comparison_sums::own_scale(first.reference_squares, static_cast<double>(count));
    EXPECT_DOUBLE_EQ(own, count ? reference_scale(pair.reference) : 1.0);
    const double scale = std::max(own, pair.scale_floor);
    comparison_sums::Sums sums;
    for (std::int64_t i = 0; i < count; ++i) {
      comparison_sums::add_element(output[i], reference[i],
                                   comparison_sums::multiply(scale, kFp32.atol), kFp32.rtol, sums);
    }
    // The same count as the tensor operations' (at the case's scale).
    const at::Tensor bound = kFp32.atol * scale + kFp32.rtol * pair.reference.abs();
    const at::Tensor outside = ~((out - pair.reference).abs() <= bound);
    EXPECT_EQ(sums.outside, outside.sum().item<double>());
    const at::Tensor bad = at::isfinite(pair.reference) & ~at::isfinite(out);
    EXPECT_EQ(sums.bad_values, bad.sum().item<double>());
    const double error_norm = (out - pair.reference).norm().item<double>();
    if (std::isfinite(error_norm)) {
      EXPECT_NEAR(std::sqrt(sums.error_squares), error_norm, 1e-12 * std::max(1.0, error_norm));
    } else {
      EXPECT_FALSE(std::isfinite(std::sqrt(sums.error_squares)));
    }
    const double largest =
        count ? at::nan_to_num((out - pair.reference).abs(), 1e308).max().item<double>() : 0.0;
    EXPECT_EQ(sums.largest_error, largest);
  }
}

TEST(ComparisonSums, TheKernelPathIsRefusedWithoutAGpuOutput) {
  const at::Tensor reference = at::ones({4}, at::kDouble);
  EXPECT_THROW(check_output(reference.to(at::kFloat), reference, at::kFloat, c10::Device(c10::kCPU),
                            kFp32, 0, ComparisonPath::kernel),
               std::invalid_argument);
}

// On a GPU: the kernel's verdict, message and figures against the tensor operations', on every
// pair above and on one large enough for many blocks and the grid-stride loop.
TEST(ComparisonSums, TheGpuKernelAgreesWithTheTensorOperations) {
  if (!device_available(Device::cuda)) {
    GTEST_SKIP() << "needs a CUDA device: " << device_unavailable_reason(Device::cuda);
  }
  const c10::Device gpu(c10::kCUDA, 0);
  std::vector<ComparedPair> pairs = compared_pairs();
  const at::Tensor large_reference = at::randn({3 * 1000 * 1000 + 17}, at::kDouble);
  at::Tensor large_output =
      (large_reference + 2e-5 * at::randn_like(large_reference)).to(at::kFloat);
  large_output[2999999] = kNaN;
  pairs.push_back({"3 M elements, one NaN", large_output, large_reference});
  pairs.push_back(
      {"a non-contiguous output", at::randn({300, 200}).t(), at::randn({200, 300}, at::kDouble)});
  for (const ComparedPair& pair : pairs) {
    SCOPED_TRACE(pair.name);
    const at::Tensor output = pair.output.to(gpu);
    const at::Tensor reference = pair.reference.to(gpu);
    const OutputCheck by_ops = check_output(output, reference, output.scalar_type(), gpu, kFp32,
                                            pair.scale_floor, ComparisonPath::tensor_ops);
    const OutputCheck by_kernel = check_output(output, reference, output.scalar_type(), gpu, kFp32,
                                               pair.scale_floor, ComparisonPath::kernel);
    EXPECT_EQ(by_kernel.passed, by_ops.passed);
    EXPECT_EQ(by_kernel.message, by_ops.message);
    EXPECT_EQ(by_kernel.max_abs_error, by_ops.max_abs_error);
    if (std::isfinite(by_ops.relative_error_norm)) {
      EXPECT_NEAR(by_kernel.relative_error_norm, by_ops.relative_error_norm,
                  1e-12 * std::max(1.0, by_ops.relative_error_norm));
    } else {
      EXPECT_FALSE(std::isfinite(by_kernel.relative_error_norm));
    }
  }
}

}  // namespace
}  // namespace rkt
