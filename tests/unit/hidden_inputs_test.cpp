// Hidden inputs: the suite format, and an end-to-end run with a secret seed and a hidden suite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "framework/inputs/hidden_inputs.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A typo in a hidden suite must never quietly become no case: every line is checked against the
// registered tasks and kernels, and the messages name the line and field only.
TEST(HiddenSuite, LinesThatWouldTestNothingAreRefusedByLineAndField) {
  const auto errors_of = [](const std::string& text) {
    return hidden_suite_errors(parse_hidden_suite(text), {"softmax", "relu"});
  };
  EXPECT_TRUE(errors_of("scale 3\nrange -2 2\ndims softmax B=3 N=5000\n").empty());
  const auto unknown_task = errors_of("scale 3\ndims sofmax_q9 N=5\n");
  ASSERT_EQ(unknown_task.size(), 1u);
  EXPECT_THAT(unknown_task[0], HasSubstr("hidden suite line 2: field 2 names a task that is not registered"));
  EXPECT_THAT(unknown_task[0], Not(HasSubstr("sofmax_q9")));
  const auto unknown_dim = errors_of("dims softmax B=3 Q=7\n");
  ASSERT_EQ(unknown_dim.size(), 1u);
  EXPECT_THAT(unknown_dim[0], HasSubstr("hidden suite line 1: field 4 names a dim the task does not have"));
  EXPECT_THAT(unknown_dim[0], Not(HasSubstr("Q")));
  const auto outside = errors_of("dims softmax N=99999999 B=2\n");
  ASSERT_EQ(outside.size(), 1u);
  EXPECT_THAT(outside[0], HasSubstr("hidden suite line 1: field 3 lies outside the task's declared domain"));
  EXPECT_THAT(outside[0], Not(HasSubstr("99999999")));
  EXPECT_THROW(parse_hidden_suite("dims softmax N=5 N=6\n"), std::invalid_argument);
  // A registered task no kernel implements: its dims line would run nowhere.
  const auto nowhere = errors_of("dims layernorm B=2 N=7\n");
  ASSERT_EQ(nowhere.size(), 1u);
  EXPECT_THAT(nowhere[0], HasSubstr("hidden suite line 1: field 2 names a task no kernel implements"));
  // No kernel at all: a suite of scales and ranges selects no case either.
  const auto no_kernel = hidden_suite_errors(parse_hidden_suite("scale 3\n"), {});
  ASSERT_EQ(no_kernel.size(), 1u);
  EXPECT_THAT(no_kernel[0], HasSubstr("the hidden suite selects no case"));
}

TEST(HiddenSuite, ParsesScalesRangesAndDims) {
  const auto cases = parse_hidden_suite(
      "# secret cases\nscale -250\nrange -5 5   # wide values\n\ndims softmax B=3 N=5000\n");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].kind, HiddenCase::Kind::scale);
  EXPECT_EQ(cases[0].scale, -250);
  EXPECT_EQ(cases[1].kind, HiddenCase::Kind::value_range);
  EXPECT_EQ(cases[1].range, std::make_pair(-5.0, 5.0));
  EXPECT_EQ(cases[2].task, "softmax");
  EXPECT_EQ(cases[2].dims, (Dims{{"B", 3}, {"N", 5000}}));
}

TEST(HiddenSuite, NamesTheBadLine) {
  try {
    parse_hidden_suite("scale 2\nscal 3\n");
    FAIL() << "accepted 'scal'";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("hidden suite line 2"));
  }
  EXPECT_THROW(parse_hidden_suite("range 5 1\n"), std::invalid_argument);
  EXPECT_THROW(parse_hidden_suite("dims relu B=0\n"), std::invalid_argument);
  EXPECT_THROW(parse_hidden_suite("scale abc\n"), std::invalid_argument);
}

// Runs `rkt_adversaries` in a shell with `environment` and returns what it printed.
std::string run_adversaries(const std::string& environment, const std::string& arguments) {
  const std::string output_path = ::testing::TempDir() + "rkt_hidden_run.txt";
  const std::string command = environment + " " + RKT_ADVERSARIES_EXECUTABLE + " " + arguments +
                              " > " + output_path + " 2>&1";
  std::system(command.c_str());
  std::ifstream file(output_path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(HiddenInputs, AddCasesWhoseDetailsStaySecretAndLeaveNoTraceInTheEnvironment) {
  const std::string suite_path = ::testing::TempDir() + "rkt_hidden_suite.txt";
  std::ofstream(suite_path) << "dims relu B=5 N=7\nscale 0.5\n";
  const std::string output = run_adversaries(
      "RKT_SECRET_SEED=987654321 RKT_HIDDEN_SUITE=" + suite_path,
      "test --filter 'relu/wrong_at_hidden_shape.integrity_hidden_*:relu/reads_secrets.*'");
  EXPECT_THAT(output, HasSubstr("hidden inputs: secret seed; hidden suite of 2 cases"));
  // The kernel wrong only at 5 x 7 fails the hidden dims case, and the report does not say why.
  EXPECT_THAT(output, HasSubstr("[failed] relu/wrong_at_hidden_shape.integrity_hidden_1"));
  EXPECT_THAT(output, HasSubstr("hidden case 1 failed (its inputs are secret"));
  EXPECT_THAT(output, Not(HasSubstr("B=5")));
  EXPECT_THAT(output, Not(HasSubstr("987654321")));
  // A kernel that fails when it can see the secrets' variables passes: they were removed.
  EXPECT_THAT(output, Not(HasSubstr("[failed] relu/reads_secrets")));
  EXPECT_THAT(output, HasSubstr("relu/reads_secrets.integrity_hidden_2"));
}

// A hidden dims case outside the dims a kernel declares it supports is skipped (the kernel said
// it does not handle them), without naming the restriction, which would tell about the dims.
TEST(HiddenInputs, DimsOutsideADeclaredDomainAreSkippedAndStillFailAnUndeclaredKernel) {
  const std::string suite_path = ::testing::TempDir() + "rkt_hidden_domain_suite.txt";
  std::ofstream(suite_path) << "dims softmax N=302\ndims softmax N=304\n";
  const std::string output = run_adversaries(
      "RKT_HIDDEN_SUITE=" + suite_path,
      "test --filter 'softmax/float4_no_tail_*.integrity_hidden_*'");
  EXPECT_THAT(output, HasSubstr("[failed] softmax/float4_no_tail_undeclared.integrity_hidden_1"));
  EXPECT_THAT(output, HasSubstr("[skipped] softmax/float4_no_tail_declared.integrity_hidden_1"));
  EXPECT_THAT(output, HasSubstr("outside the dims the kernel declares it supports"));
  EXPECT_THAT(output, Not(HasSubstr("N=302")));
  EXPECT_THAT(output, HasSubstr("2 passed, 1 failed, 1 skipped"));
}

TEST(HiddenInputs, TheSecretSeedChangesTheInputsAndIsWithheldFromMessages) {
  const std::string filter = "test --filter 'relu/reads_secrets.correctness_x1'";
  const std::string plain = run_adversaries("RKT_SEED=5", filter);
  const std::string secret = run_adversaries("RKT_SEED=5 RKT_SECRET_SEED=11", filter);
  const std::string shown =
      run_adversaries("RKT_SEED=5 RKT_SECRET_SEED=11 RKT_HIDDEN_VERBOSE=1", filter);
  EXPECT_THAT(secret, HasSubstr("seed withheld (secret seed in use)"));
  const std::regex case_seed("dims B=37 N=300, seed ([0-9]+)");
  std::smatch plain_seed, shown_seed;
  ASSERT_TRUE(std::regex_search(plain, plain_seed, case_seed)) << plain;
  ASSERT_TRUE(std::regex_search(shown, shown_seed, case_seed)) << shown;
  EXPECT_NE(plain_seed[1], shown_seed[1]) << "the secret seed must change the inputs";
}

}  // namespace
}  // namespace rkt
