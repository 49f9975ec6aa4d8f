// The bound on a call from the kernel's earlier calls (framework/isolation/hung_call_limit.h):
// the arithmetic here; the hanging adversary that it stops in adversary_test.cpp.
#include "framework/isolation/hung_call_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <set>
#include <stdexcept>
#include <string>

#include "framework/isolation/worker_process.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

class HungCallLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    forget_returned_calls();
    unsetenv(kHungCallFactorVariable);
    unsetenv(kWorkerReplyTimeoutVariable);
  }
  void TearDown() override { SetUp(); }

  // A call of `kernel` from worker 7, after that worker's first call of it: a slow one (it loads
  // the kernel's code), which must not count.
  void returned(const std::string& kernel, double seconds, double argument_bytes) {
    if (primed_.insert(kernel).second) note_call_returned(kernel, kWorker, 5.0, argument_bytes);
    note_call_returned(kernel, kWorker, seconds, argument_bytes);
  }
  std::set<std::string> primed_;
  static constexpr int kWorker = 7;
};

TEST_F(HungCallLimitTest, AKernelWithNoReturnedCallGetsTheReplyTimeout) {
  const HungCallLimit limit = hung_call_limit("relu/new", 1e6);
  EXPECT_EQ(limit.seconds, defaults::kWorkerReplyTimeoutSeconds);
  EXPECT_EQ(limit.basis, "");
}

TEST_F(HungCallLimitTest, AQuickKernelsLaterCallsGetTheFloor) {
  returned("relu/quick", 0.002, 1e6);
  const HungCallLimit limit = hung_call_limit("relu/quick", 1e6);
  EXPECT_EQ(limit.seconds, defaults::kHungCallFloorSeconds);
  EXPECT_THAT(limit.basis, HasSubstr("1000x its earlier call of 2 ms on 1 MB of arguments"));
  // Another kernel's calls say nothing of this one's.
  EXPECT_EQ(hung_call_limit("relu/other", 1e6).seconds, defaults::kWorkerReplyTimeoutSeconds);
}

TEST_F(HungCallLimitTest, LargerInputsAreAllowedTheSquareOfTheirGrowth) {
  returned("attention/k", 0.005, 1e6);
  // 2x the bytes: 1000 x 5 ms x 4 = 20 s.
  const HungCallLimit limit = hung_call_limit("attention/k", 2e6);
  EXPECT_EQ(limit.seconds, 20);
  EXPECT_THAT(limit.basis, HasSubstr("times the square of this call's 2x more bytes"));
  // Smaller inputs are allowed no less than the call's own time x the factor.
  EXPECT_EQ(hung_call_limit("attention/k", 1e3).seconds, defaults::kHungCallFloorSeconds);
}

TEST_F(HungCallLimitTest, TheMostGenerousEarlierCallSetsTheLimit) {
  returned("k", 0.001, 1e6);
  returned("k", 0.03, 1e6);  // a slow value family: 30 s allowed
  returned("k", 0.001, 1e6);
  EXPECT_EQ(hung_call_limit("k", 1e6).seconds, 30);
  // Hundreds of quick calls later (a property's trials), the slow one still counts.
  for (int i = 0; i < 500; ++i) note_call_returned("k", kWorker, 0.0005, 1e6);
  EXPECT_EQ(hung_call_limit("k", 1e6).seconds, 30);
}

TEST_F(HungCallLimitTest, NeverMoreThanTheReplyTimeout) {
  returned("slow", 1.0, 1e6);  // 1000 s allowed, the reply timeout is less
  const HungCallLimit limit = hung_call_limit("slow", 1e6);
  EXPECT_EQ(limit.seconds, defaults::kWorkerReplyTimeoutSeconds);
  EXPECT_EQ(limit.basis, "");
  setenv(kWorkerReplyTimeoutVariable, "5", 1);
  EXPECT_EQ(hung_call_limit("slow", 1e6).seconds, 5);
}

TEST_F(HungCallLimitTest, TheFactorIsSetOrTurnedOffByItsVariable) {
  returned("k", 0.05, 1e6);
  setenv(kHungCallFactorVariable, "400", 1);
  EXPECT_EQ(hung_call_limit("k", 1e6).seconds, 20);
  EXPECT_THAT(hung_call_limit("k", 1e6).basis, HasSubstr("400x its earlier call"));
  setenv(kHungCallFactorVariable, "0", 1);
  EXPECT_EQ(hung_call_limit("k", 1e6).seconds, defaults::kWorkerReplyTimeoutSeconds);
  for (const char* bad : {"0.5", "-3", "many", "nan"}) {
    setenv(kHungCallFactorVariable, bad, 1);
    try {
      hung_call_limit("k", 1e6);
      ADD_FAILURE() << "RKT_HUNG_CALL_FACTOR=" << bad << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(std::string("RKT_HUNG_CALL_FACTOR='") + bad + "'"));
    }
  }
}

TEST_F(HungCallLimitTest, EachWorkersFirstCallOfTheKernelIsNotAMeasure) {
  // Run 44: the first call (0.3 s, loading the code) would have allowed 300 s, the reply
  // timeout, to a call of a kernel whose later calls took 0.1 ms.
  note_call_returned("relu/k", 100, 0.3, 44400);
  EXPECT_EQ(hung_call_limit("relu/k", 44400).seconds, defaults::kWorkerReplyTimeoutSeconds);
  note_call_returned("relu/k", 100, 0.0001, 44400);
  EXPECT_EQ(hung_call_limit("relu/k", 44400).seconds, defaults::kHungCallFloorSeconds);
  // A new worker (the old one was lost) loads the code again.
  note_call_returned("relu/k", 101, 0.3, 44400);
  EXPECT_EQ(hung_call_limit("relu/k", 44400).seconds, defaults::kHungCallFloorSeconds);
}

TEST_F(HungCallLimitTest, AHugeGrowthInBytesIsTheReplyTimeoutNotAnOverflow) {
  // Run 44: a 3-element trial, then a 2.6-million-element one: 1000 x 0.3 ms x (8.7e5)^2 s.
  returned("relu/k", 0.000327, 12);
  const HungCallLimit limit = hung_call_limit("relu/k", 12 * 8.72e5);
  EXPECT_EQ(limit.seconds, defaults::kWorkerReplyTimeoutSeconds);
  EXPECT_EQ(limit.basis, "");
}

}  // namespace
}  // namespace rkt
