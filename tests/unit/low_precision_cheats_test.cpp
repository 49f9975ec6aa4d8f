// The low-precision cheats of tests/adversaries/low_precision_cheats.cpp, run under supervision as
// `rkt test` runs them: each must fail the case that catches it, with a message that says why, and
// each honest control must pass. Fixed seeds: the verdicts do not move from run to run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "adversary_support.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using testing::case_message;
using testing::expect_case_status;

const char* const kDistributions[] = {"correctness_x1", "correctness_x3", "correctness_x0_01",
                                      "correctness_negated"};
// The GEMM's product scales with the square of the input scale and its bias linearly: at x0.01
// a @ b is 100 times smaller than the bias, so the product's error hides under the bias there
// (the bf16 accumulator errs by 0.6% of the output, fp8 products by 0.9%, against a bound of
// about 0.9%). A kernel must pass every distribution: the other three catch them.
const char* const kProductDominated[] = {"correctness_x1", "correctness_x3", "correctness_negated"};

std::map<std::string, CaseRecord> run_cases(const std::string& filter) {
  return testing::run_adversary_cases(filter, 120, "1");
}

TEST(LowPrecisionCheats, Bf16AccumulationFailsUnlessDeclaredAndFp32AccumulationPasses) {
  const auto cases = run_cases(
      "matmul_bias_gelu_bf16/fp32_accumulator.correctness_*:"
      "matmul_bias_gelu_bf16/bf16_accumulator_claims_fp32.correctness_*:"
      "matmul_bias_gelu_bf16/bf16_accumulator_declared.correctness_*");
  for (const char* name : kDistributions) {
    expect_case_status(cases, std::string("matmul_bias_gelu_bf16/fp32_accumulator.") + name, "passed");
    expect_case_status(cases, std::string("matmul_bias_gelu_bf16/bf16_accumulator_declared.") + name,
                       "passed");
  }
  for (const char* name : kProductDominated) {
    expect_case_status(cases, std::string("matmul_bias_gelu_bf16/bf16_accumulator_claims_fp32.") + name,
                       "failed");
  }
  const std::string caught =
      case_message(cases, "matmul_bias_gelu_bf16/bf16_accumulator_claims_fp32.correctness_x1");
  EXPECT_THAT(caught, HasSubstr("[claims fp32]"));
  EXPECT_THAT(caught, HasSubstr("relative error norm"));
  EXPECT_THAT(case_message(cases, "matmul_bias_gelu_bf16/bf16_accumulator_declared.correctness_x1"),
              HasSubstr("[claims fp32, accumulates in bf16]"));
}

// Repeated calls on the same inputs: a bf16 output one ulp apart from call to call is what an
// honest kernel with atomics gives (float32's tolerance would refuse it); computing nothing on a
// repeat is a cheat.
TEST(LowPrecisionCheats, DeterminismAdmitsAnUlpOfTheOutputFormatAndCatchesMemoisation) {
  const auto cases = run_cases("softmax_bf16/an_ulp_apart_between_calls.integrity_determinism:"
                               "softmax_bf16/an_ulp_apart_between_calls.correctness_x1:"
                               "softmax_bf16/memoised_by_address.integrity_determinism");
  expect_case_status(cases, "softmax_bf16/an_ulp_apart_between_calls.integrity_determinism", "passed");
  expect_case_status(cases, "softmax_bf16/an_ulp_apart_between_calls.correctness_x1", "passed");
  expect_case_status(cases, "softmax_bf16/memoised_by_address.integrity_determinism", "failed");
  EXPECT_THAT(case_message(cases, "softmax_bf16/memoised_by_address.integrity_determinism"),
              HasSubstr("nondeterminism: call 2 on the same inputs disagrees with call 1"));
}

TEST(LowPrecisionCheats, Fp8ProductsClaimingBf16Fail) {
  const auto cases = run_cases("matmul_bias_gelu_bf16/fp8_e4m3_products.correctness_*");
  for (const char* name : kProductDominated) {
    expect_case_status(cases, std::string("matmul_bias_gelu_bf16/fp8_e4m3_products.") + name, "failed");
  }
}

TEST(LowPrecisionCheats, AttentionWithoutTheRunningMaxOverflowsAtX3) {
  const auto cases = run_cases("attention_bf16/no_running_max.correctness_*");
  expect_case_status(cases, "attention_bf16/no_running_max.correctness_x1", "passed");
  expect_case_status(cases, "attention_bf16/no_running_max.correctness_x3", "failed");
  EXPECT_THAT(case_message(cases, "attention_bf16/no_running_max.correctness_x3"),
              HasSubstr("NaN/Inf where the reference is finite"));
}

TEST(LowPrecisionCheats, CausalMaskOffByOneFails) {
  const auto cases = run_cases("attention_causal_bf16/mask_off_by_one.correctness_*");
  for (const char* name : kDistributions) {
    expect_case_status(cases, std::string("attention_causal_bf16/mask_off_by_one.") + name, "failed");
  }
}

TEST(LowPrecisionCheats, AttentionRightOnlyOnWholeTilesFailsOffTheTiles) {
  const auto cases = run_cases("attention_bf16/whole_tiles_only.correctness_x1:"
                               "attention_bf16/whole_tiles_only.property_shapes");
  expect_case_status(cases, "attention_bf16/whole_tiles_only.correctness_x1", "failed");
  EXPECT_THAT(case_message(cases, "attention_bf16/whole_tiles_only.correctness_x1"),
              HasSubstr("seq="));
  expect_case_status(cases, "attention_bf16/whole_tiles_only.property_shapes", "failed");
}

TEST(LowPrecisionCheats, OnlineSoftmaxAttentionWithFloat32StatisticsPasses) {
  const auto cases = run_cases("attention_bf16/online_softmax.correctness_*:"
                               "attention_causal_bf16/online_softmax.correctness_*");
  for (const char* name : kDistributions) {
    expect_case_status(cases, std::string("attention_bf16/online_softmax.") + name, "passed");
    expect_case_status(cases, std::string("attention_causal_bf16/online_softmax.") + name, "passed");
  }
}

}  // namespace
}  // namespace rkt
