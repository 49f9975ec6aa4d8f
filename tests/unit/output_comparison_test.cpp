// The tolerance rules and the output check, on hand-made tensors.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "framework/comparison/output_comparison.h"
#include "rkt/precision.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

const Tolerance kFp32 = default_tolerance(Precision::fp32);

TEST(DefaultTolerance, FollowsKernelBenchAndKernelBenchVerified) {
  EXPECT_EQ(default_tolerance(Precision::fp32).atol, 1e-4);
  EXPECT_EQ(default_tolerance(Precision::fp32).rtol, 1e-4);
  EXPECT_EQ(default_tolerance(Precision::tf32).atol, 1e-3);
  EXPECT_EQ(default_tolerance(Precision::bf16).rtol, 1e-2);
  // fp16's floor sits below bf16's input rounding (3 fewer mantissa bits), so that a bf16 kernel
  // claiming fp16 fails; the judge raises it to what an honest fp16 kernel gives on each case.
  EXPECT_EQ(default_tolerance(Precision::fp16).atol, 1e-3);
  EXPECT_LT(default_tolerance(Precision::fp32).max_relative_error_norm,
            default_tolerance(Precision::tf32).max_relative_error_norm);
}

TEST(RelativeErrorNorm, IsTheRatioOfL2Norms) {
  const at::Tensor reference = at::tensor({3.0, 4.0}, at::kDouble);  // norm 5
  const at::Tensor output = at::tensor({3.0, 4.5}, at::kDouble);     // error norm 0.5
  EXPECT_DOUBLE_EQ(relative_error_norm(output, reference), 0.1);
}

TEST(RelativeErrorNorm, FallsBackToTheAbsoluteNormForAZeroReference) {
  const at::Tensor reference = at::zeros({2}, at::kDouble);
  EXPECT_DOUBLE_EQ(relative_error_norm(at::tensor({0.0, 2.0}, at::kDouble), reference), 2.0);
}

TEST(ReferenceScale, IsTheRmsOrOneForAZeroReference) {
  EXPECT_DOUBLE_EQ(reference_scale(at::tensor({3.0, -3.0}, at::kDouble)), 3.0);
  EXPECT_DOUBLE_EQ(reference_scale(at::zeros({4}, at::kDouble)), 1.0);
}

TEST(CountOutsideTolerance, AppliesAtolTimesRmsPlusRtolTimesReference) {
  const at::Tensor reference = at::tensor({0.0, 2.0, -2.0, 2.0}, at::kDouble);  // rms sqrt(3)
  // Allowed errors: 1e-4 * sqrt(3) (~1.73e-4) + 1e-4 * |ref|: 1.73e-4, 3.73e-4, 3.73e-4, 3.73e-4.
  const at::Tensor output = at::tensor({1.5e-4, 2.0003, -2.0005, 2.0}, at::kDouble);
  EXPECT_EQ(count_outside_tolerance(output, reference, kFp32), 1);
}

TEST(CountOutsideTolerance, MeansTheSameAtEveryScale) {
  const at::Tensor reference = at::randn({1000}, at::kDouble);
  const at::Tensor output = reference + 3e-5 * at::randn({1000}, at::kDouble);
  const std::int64_t at_unit_scale = count_outside_tolerance(output, reference, kFp32);
  for (double scale : {1e-3, 1e3}) {
    EXPECT_EQ(count_outside_tolerance(output * scale, reference * scale, kFp32), at_unit_scale);
  }
}

TEST(CountOutsideTolerance, CountsNaNAsOutside) {
  const at::Tensor reference = at::tensor({1.0, 2.0}, at::kDouble);
  const at::Tensor output =
      at::tensor({1.0, std::numeric_limits<double>::quiet_NaN()}, at::kDouble);
  EXPECT_EQ(count_outside_tolerance(output, reference, kFp32), 1);
}

TEST(CheckOutput, PassesAnExactFloatOutput) {
  const at::Tensor reference = at::randn({5, 7}, at::kDouble);
  const OutputCheck check =
      check_output(reference.to(at::kFloat), reference, at::kFloat, at::kCPU, kFp32);
  EXPECT_TRUE(check.passed) << check.message;
  EXPECT_LT(check.relative_error_norm, 1e-7);
}

TEST(CheckOutput, NamesTheWrongShape) {
  const at::Tensor reference = at::zeros({5, 7}, at::kDouble);
  const OutputCheck check =
      check_output(at::zeros({7, 5}, at::kFloat), reference, at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("shape [7, 5] differs from the reference's [5, 7]"));
}

TEST(CheckOutput, NamesTheWrongDtype) {
  const at::Tensor reference = at::zeros({3}, at::kDouble);
  const OutputCheck check =
      check_output(at::zeros({3}, at::kDouble), reference, at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("dtype"));
}

TEST(CheckOutput, ReportsNaNWhereTheReferenceIsFinite) {
  const at::Tensor reference = at::ones({2, 3}, at::kDouble);
  at::Tensor output = at::ones({2, 3}, at::kFloat);
  output[1][2] = std::numeric_limits<float>::quiet_NaN();
  const OutputCheck check = check_output(output, reference, at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("1 of 6 elements are NaN/Inf where the reference is "
                                       "finite (first at [1,2]"));
}

TEST(CheckOutput, CatchesAnErrorThatAnAbsoluteAtolWouldAccept) {
  // Outputs around 1e-4 (a x0.01 case): a 50% error is below torch.allclose's absolute 1e-4.
  const at::Tensor reference = at::full({100}, 1e-4, at::kDouble);
  const OutputCheck check = check_output(at::full({100}, 1.5e-4, at::kFloat), reference,
                                         at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("100 of 100 elements are outside"));
  EXPECT_THAT(check.message, HasSubstr("relative error norm"));
}

TEST(CheckOutput, TheNormBoundCatchesSmallErrorsSpreadEverywhere) {
  // Every element off by 3e-5 relative: inside atol/rtol 1e-4, but the norm is 3x its 1e-5 bound.
  const at::Tensor reference = at::full({100}, 2.0, at::kDouble);
  const OutputCheck check = check_output(at::full({100}, 2.0 * (1 + 3e-5), at::kFloat),
                                         reference, at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("relative error norm"));
  EXPECT_THAT(check.message, ::testing::Not(HasSubstr("outside atol")));
}

TEST(CheckOutput, NamesTheWorstElement) {
  const at::Tensor reference = at::zeros({4}, at::kDouble);
  const OutputCheck check = check_output(at::tensor({0.0f, 0.0f, 0.5f, 0.0f}), reference,
                                         at::kFloat, at::kCPU, kFp32);
  EXPECT_FALSE(check.passed);
  EXPECT_THAT(check.message, HasSubstr("1 of 4 elements are outside atol=0.0001 x rms(ref) 1 = "
                                       "0.0001, rtol=0.0001 (first at [2]: output 0.5, "
                                       "reference 0)"));
}

TEST(CheckOutput, AnOutputThatIsZeroUpToRoundingIsJudgedOnTheCasesLargestScale) {
  // A LayerNorm weight gradient over rows of one element: mathematically zero, 1e-16 in float64.
  const at::Tensor rounding_noise = at::full({3}, -6.6e-16, at::kDouble);
  const at::Tensor other_output = at::full({3}, 2.0, at::kDouble);
  const double floor = numerically_zero_floor({rounding_noise, other_output});
  EXPECT_DOUBLE_EQ(floor, kNumericallyZeroFraction * 2.0);
  const at::Tensor zeros = at::zeros({3}, at::kFloat);
  EXPECT_FALSE(check_output(zeros, rounding_noise, at::kFloat, at::kCPU, kFp32).passed);
  EXPECT_TRUE(check_output(zeros, rounding_noise, at::kFloat, at::kCPU, kFp32, floor).passed);
  // The floor forgives nothing an fp32 result could resolve.
  EXPECT_FALSE(check_output(at::full({3}, 1e-6, at::kFloat), rounding_noise, at::kFloat, at::kCPU,
                            kFp32, floor)
                   .passed);
  EXPECT_FALSE(check_output(at::full({3}, 2.001, at::kFloat), other_output, at::kFloat, at::kCPU,
                            kFp32, floor)
                   .passed);
}

}  // namespace
}  // namespace rkt
