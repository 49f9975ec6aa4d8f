// Users' own properties (ROBUST_PROPERTY): validation, and the adversaries of
// user_property_kernels.cpp with the properties of user_properties.cpp, isolated and in-process.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "adversary_support.h"
#include "framework/isolation/kernel_library.h"
#include "framework/registry/registry_validation.h"
#include "rkt/user_property.h"

namespace rkt {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::expect_case_status;

rc::Gen<Dims> any_n() {
  return rc::gen::map(rc::gen::inRange(1, 9), [](int n) { return Dims{{"N", n}}; });
}

TEST(UserPropertyDeclaration, ProblemsAreNamedWithWhereTheyAre) {
  UserProperty unknown_task("sofmax", "p", "mine.cpp", 3);
  unknown_task.dims(any_n());
  EXPECT_THAT(user_property_problems(unknown_task),
              Contains(HasSubstr("property 'p' (mine.cpp:3) is declared on unknown task 'sofmax'; "
                                 "did you mean 'softmax'?")));
  UserProperty unknown_kernel("softmax", "p", "mine.cpp", 4);
  unknown_kernel.dims(any_n()).kernels({"not_a_kernel"});
  EXPECT_THAT(user_property_problems(unknown_kernel),
              Contains(HasSubstr("names kernel 'not_a_kernel', which is not a kernel of task 'softmax'")));
  UserProperty empty("softmax", "p", "mine.cpp", 5);
  EXPECT_THAT(user_property_problems(empty), Contains(HasSubstr("adds nothing")));
  UserProperty bad_name("softmax", "has space", "mine.cpp", 6);
  bad_name.check([](const UserPropertyTrial&) { return std::string(); });
  EXPECT_THAT(user_property_problems(bad_name), Contains(HasSubstr("letters, digits and '_'")));
  UserProperty no_trials("softmax", "p", "mine.cpp", 7);
  no_trials.dims(any_n()).trials(0);
  EXPECT_THAT(user_property_problems(no_trials), Contains(HasSubstr("trials(0)")));
  UserProperty fine("softmax", "p", "mine.cpp", 8);
  fine.dims(any_n());
  EXPECT_THAT(user_property_problems(fine), IsEmpty());
  EXPECT_TRUE(fine.applies_to("anything"));
  fine.kernels({"mine"});
  EXPECT_TRUE(fine.applies_to("mine"));
  EXPECT_FALSE(fine.applies_to("other"));
}

// The properties are judge code: in both modes they run in the judge, the kernels where kernels
// run (the worker when isolated), and the verdicts agree.
class UserPropertyAdversaries : public ::testing::TestWithParam<bool> {};

TEST_P(UserPropertyAdversaries, CatchTheirBugAndPassTheHonestKernel) {
  if (GetParam()) ::setenv(kIsolationVariable, "in-process", 1);
  const auto cases = testing::run_adversary_cases(
      "softmax/tile96_*.user_*:softmax/ties_counted_once.*", 300, "1");
  if (GetParam()) ::unsetenv(kIsolationVariable);
  // The tile bug: every correctness case passes at N = 300; the property drawing around
  // multiples of 96 fails it, shrunk to the smallest tile count, with a replay string.
  expect_case_status(cases, "softmax/tile96_tail_bug.user_tile_edges", "failed");
  const CaseRecord& tile = cases.at("softmax/tile96_tail_bug.user_tile_edges");
  EXPECT_EQ(tile.details.dims.at("N"), 95) << tile.message;
  EXPECT_THAT(tile.details.reproduce, HasSubstr("RC_PARAMS="));
  EXPECT_THAT(tile.message, HasSubstr("correct one element either side of each multiple of 96"));
  EXPECT_THAT(tile.message, HasSubstr("reproduce="));
  expect_case_status(cases, "softmax/tile96_honest.user_tile_edges", "passed");
  // The check without a reference: rows of tied integers.
  expect_case_status(cases, "softmax/ties_counted_once.correctness_x1", "passed");
  expect_case_status(cases, "softmax/ties_counted_once.user_rows_sum_to_one", "failed");
  EXPECT_THAT(cases.at("softmax/ties_counted_once.user_rows_sum_to_one").message,
              HasSubstr("a row sums to 1 + "));
  expect_case_status(cases, "softmax/tile96_honest.user_rows_sum_to_one", "passed");
  // A property names its kernels: others do not get its case.
  EXPECT_EQ(cases.count("softmax/ties_counted_once.user_tile_edges"), 0u);
}

INSTANTIATE_TEST_SUITE_P(BothModes, UserPropertyAdversaries, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "in_process" : "isolated"; });

TEST(UserPropertyAdversaries, RcParamsReplaysTheShrunkFailure) {
  const auto first = testing::run_adversary_cases("softmax/tile96_tail_bug.user_tile_edges", 120, "5");
  const CaseRecord& failed = first.at("softmax/tile96_tail_bug.user_tile_edges");
  ASSERT_EQ(failed.status, "failed") << failed.message;
  std::smatch match;
  const std::string reproduce = failed.details.reproduce;
  ASSERT_TRUE(std::regex_search(reproduce, match, std::regex("RC_PARAMS=\"(.*)\""))) << reproduce;
  ::setenv("RC_PARAMS", match[1].str().c_str(), 1);
  const auto replayed = testing::run_adversary_cases("softmax/tile96_tail_bug.user_tile_edges", 120);
  ::unsetenv("RC_PARAMS");
  const CaseRecord& again = replayed.at("softmax/tile96_tail_bug.user_tile_edges");
  EXPECT_EQ(again.status, "failed");
  EXPECT_EQ(again.details.dims, failed.details.dims);
}

}  // namespace
}  // namespace rkt
