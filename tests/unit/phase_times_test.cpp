// The phase clock (framework/base/phase_times.h): nested scopes never count the same time twice,
// other threads count nothing, and the record text round-trips.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "framework/base/phase_times.h"

namespace rkt {
namespace {

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

TEST(PhaseTimes, ANestedScopePausesTheEnclosingOne) {
  const PhaseTimes before = process_phase_times();
  {
    ScopedPhase drawing(Phase::drawing);
    sleep_ms(10);
    {
      ScopedPhase references(Phase::references);
      sleep_ms(200);
    }
  }
  const PhaseTimes spent = process_phase_times() - before;
  EXPECT_GE(spent[Phase::references], 200);
  EXPECT_GE(spent[Phase::drawing], 10);
  // Counted twice, drawing would hold the inner 200 ms as well.
  EXPECT_LT(spent[Phase::drawing], 150);
  EXPECT_EQ(spent[Phase::timing], 0);
}

// The worker's mapping time comes inside a kernel call's round trip and moves to buffer_sharing;
// never more than the call itself counted.
TEST(PhaseTimes, TimeMeasuredElsewhereMovesOutOfTheOpenPhase) {
  const PhaseTimes before = process_phase_times();
  {
    ScopedPhase calls(Phase::kernel_calls);
    sleep_ms(100);
    reassign_phase_time(Phase::buffer_sharing, 60);
  }
  PhaseTimes spent = process_phase_times() - before;
  EXPECT_DOUBLE_EQ(spent[Phase::buffer_sharing], 60);
  EXPECT_GE(spent[Phase::kernel_calls], 40);
  EXPECT_LT(spent[Phase::kernel_calls], 95);
  const PhaseTimes again = process_phase_times();
  {
    ScopedPhase calls(Phase::kernel_calls);
    reassign_phase_time(Phase::buffer_sharing, 1e9);
  }
  spent = process_phase_times() - again;
  EXPECT_GE(spent[Phase::kernel_calls], 0);  // only the scope's own (tiny) time moved
  EXPECT_LT(spent[Phase::buffer_sharing], 50);
}

TEST(PhaseTimes, AnotherThreadsScopesCountNothing) {
  { ScopedPhase claim(Phase::comparison); }  // this (the main) thread counts
  const PhaseTimes before = process_phase_times();
  std::thread helper([] {
    ScopedPhase timing(Phase::timing);
    sleep_ms(100);
  });
  helper.join();
  EXPECT_EQ((process_phase_times() - before)[Phase::timing], 0);
}

TEST(PhaseTimes, RecordTextRoundTrips) {
  PhaseTimes times;
  times[Phase::drawing] = 12.5;
  times[Phase::kernel_calls] = 3;
  times[Phase::timing] = 1000.25;
  const std::string text = format_phase_times(times);
  EXPECT_EQ(text, "drawing=12.5 references=0 kernel_calls=3 comparison=0 timing=1000.25 buffer_sharing=0");
  const PhaseTimes back = parse_phase_times(text + " unknown=7 broken");
  EXPECT_EQ(back.milliseconds, times.milliseconds);
  EXPECT_DOUBLE_EQ(back.total(), 1015.75);
}

}  // namespace
}  // namespace rkt
