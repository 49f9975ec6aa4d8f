// Cases whose work runs in a process of its own start beside the others once the selection is
// known, and each one's gtest case collects its outcome (framework/supervision/cases_beside.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "framework/supervision/cases_beside.h"

namespace rkt {
namespace {

// Waits up to 60 s for `flag`: long enough for a loaded machine, never a speed claim.
bool becomes_true(const std::atomic<bool>& flag) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!flag && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return flag;
}

TEST(CasesBeside, ASelectedCaseStartsOnAHelperBeforeItIsAskedFor) {
  static std::atomic<bool> started{false};
  static std::thread::id ran_on;
  offer_case_beside("beside_test/k.sanitizer_a", [] {
    ran_on = std::this_thread::get_id();
    started = true;
    return CaseOutcome{CaseStatus::passed, "ran beside"};
  });
  start_cases_beside({"beside_test/k.correctness_x1", "beside_test/k.sanitizer_a"});
  ASSERT_TRUE(becomes_true(started)) << "the selected case never started on its own";
  const CaseOutcome outcome = outcome_of_case_beside("beside_test/k.sanitizer_a").outcome;
  finish_cases_beside();
  EXPECT_EQ(outcome.status, CaseStatus::passed);
  EXPECT_EQ(outcome.message, "ran beside");
  EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(CasesBeside, ACaseNotSelectedRunsOnTheThreadThatAsks) {
  static std::thread::id ran_on;
  offer_case_beside("beside_test/k.sanitizer_b", [] {
    ran_on = std::this_thread::get_id();
    return CaseOutcome{CaseStatus::failed, "found 1 error"};
  });
  start_cases_beside({"beside_test/k.correctness_x1"});
  const CaseOutcome outcome = outcome_of_case_beside("beside_test/k.sanitizer_b").outcome;
  finish_cases_beside();
  EXPECT_EQ(outcome.status, CaseStatus::failed);
  EXPECT_EQ(outcome.message, "found 1 error");
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(CasesBeside, AThrowingCaseFailsWithItsMessage) {
  offer_case_beside("beside_test/k.sanitizer_c",
                    []() -> CaseOutcome { throw std::runtime_error("worker would not start"); });
  start_cases_beside({"beside_test/k.sanitizer_c"});
  const CaseOutcome outcome = outcome_of_case_beside("beside_test/k.sanitizer_c").outcome;
  finish_cases_beside();
  EXPECT_EQ(outcome.status, CaseStatus::failed);
  EXPECT_NE(outcome.message.find("worker would not start"), std::string::npos) << outcome.message;
}

// The case's record keeps the time it ran beside the others, not its gtest case's, which only
// collects the outcome (run 46's records said 0 ms for sanitizer cases of 4-5 s).
TEST(CasesBeside, ACaseKeepsTheTimeItRanBesideTheOthers) {
  static std::atomic<bool> started{false};
  offer_case_beside("beside_test/k.sanitizer_d", [] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    return CaseOutcome{CaseStatus::passed, "ran beside"};
  });
  start_cases_beside({"beside_test/k.sanitizer_d"});
  ASSERT_TRUE(becomes_true(started));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // done before it is asked for
  const auto asked = std::chrono::steady_clock::now();
  const CaseRunBeside ran = outcome_of_case_beside("beside_test/k.sanitizer_d");
  const double collecting_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
  finish_cases_beside();
  EXPECT_EQ(ran.outcome.message, "ran beside");
  EXPECT_GE(ran.milliseconds, 120.0);
  EXPECT_LT(collecting_ms, ran.milliseconds);
  // Run on the thread that asks, it is timed the same way.
  offer_case_beside("beside_test/k.sanitizer_e", [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return CaseOutcome{CaseStatus::passed, ""};
  });
  start_cases_beside({});
  EXPECT_GE(outcome_of_case_beside("beside_test/k.sanitizer_e").milliseconds, 50.0);
  finish_cases_beside();
}

TEST(CasesBeside, ACaseNeverOfferedIsAFailureNotAPass) {
  const CaseOutcome outcome = outcome_of_case_beside("beside_test/k.never_offered").outcome;
  EXPECT_EQ(outcome.status, CaseStatus::failed);
}

}  // namespace
}  // namespace rkt
