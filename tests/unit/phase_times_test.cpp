// The phase clock (framework/base/phase_times.h): nested scopes never count the same time twice,
// other threads count nothing, and the record text round-trips.
#include "framework/base/phase_times.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace rkt {
namespace {

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

// Milliseconds since `start` on the clock the phases use. The bounds below hold against what the
// sleeps really took, so a loaded machine (CI shares its cores) that oversleeps cannot fail them.
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(PhaseTimes, ANestedScopePausesTheEnclosingOne) {
  const PhaseTimes before = process_phase_times();
  double whole_ms = 0;
  double inner_ms = 0;
  {
    const auto whole_start = std::chrono::steady_clock::now();
    {
      ScopedPhase drawing(Phase::drawing);
      sleep_ms(10);
      {
        ScopedPhase references(Phase::references);
        const auto inner_start = std::chrono::steady_clock::now();
        sleep_ms(200);
        inner_ms = ms_since(inner_start);
      }
    }
    whole_ms = ms_since(whole_start);
  }
  const PhaseTimes spent = process_phase_times() - before;
  EXPECT_GE(spent[Phase::references], 200);
  EXPECT_GE(spent[Phase::drawing], 10);
  // Counted twice, drawing would hold the inner sleep as well.
  EXPECT_LE(spent[Phase::drawing], whole_ms - inner_ms + 1);
  EXPECT_LE(spent[Phase::drawing] + spent[Phase::references], whole_ms + 1);
  EXPECT_EQ(spent[Phase::timing], 0);
}

// The worker's mapping time comes inside a kernel call's round trip and moves to buffer_sharing;
// never more than the call itself counted.
TEST(PhaseTimes, TimeMeasuredElsewhereMovesOutOfTheOpenPhase) {
  const PhaseTimes before = process_phase_times();
  double scope_ms = 0;
  {
    const auto scope_start = std::chrono::steady_clock::now();
    {
      ScopedPhase calls(Phase::kernel_calls);
      sleep_ms(100);
      reassign_phase_time(Phase::buffer_sharing, 60);
    }
    scope_ms = ms_since(scope_start);
  }
  PhaseTimes spent = process_phase_times() - before;
  EXPECT_DOUBLE_EQ(spent[Phase::buffer_sharing], 60);
  EXPECT_GE(spent[Phase::kernel_calls], 40);
  EXPECT_LE(spent[Phase::kernel_calls], scope_ms - 60 + 1);
  const PhaseTimes again = process_phase_times();
  double empty_scope_ms = 0;
  {
    const auto scope_start = std::chrono::steady_clock::now();
    {
      ScopedPhase calls(Phase::kernel_calls);
      reassign_phase_time(Phase::buffer_sharing, 1e9);
    }
    empty_scope_ms = ms_since(scope_start);
  }
  spent = process_phase_times() - again;
  EXPECT_GE(spent[Phase::kernel_calls], 0);  // only the scope's own (tiny) time moved
  EXPECT_LE(spent[Phase::buffer_sharing], empty_scope_ms + 1);
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

// Run 45: a sanitizer case beside the others opened the process's first scope (waiting for its
// share of the GPU) on its own thread, and every phase of the judge's main thread went uncounted.
// A fresh process (the "threadsafe" style runs the statement in a new run of this binary), so
// that no earlier test has opened a scope on the main thread first.
TEST(PhaseTimesDeathTest, TheMainThreadCountsWhenAnotherThreadOpensTheFirstScope) {
  const std::string style = GTEST_FLAG_GET(death_test_style);  // given back for later tests
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::thread beside([] { ScopedPhase waiting(Phase::device_wait); });
        beside.join();
        const PhaseTimes before = process_phase_times();
        {
          ScopedPhase drawing(Phase::drawing);
          sleep_ms(50);
        }
        const PhaseTimes spent = process_phase_times() - before;
        std::_Exit(spent[Phase::drawing] >= 50 && spent[Phase::device_wait] == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  GTEST_FLAG_SET(death_test_style, style);
}

TEST(PhaseTimes, RecordTextRoundTrips) {
  PhaseTimes times;
  times[Phase::drawing] = 12.5;
  times[Phase::kernel_calls] = 3;
  times[Phase::timing] = 1000.25;
  const std::string text = format_phase_times(times);
  EXPECT_EQ(text,
            "drawing=12.5 references=0 kernel_calls=3 comparison=0 timing=1000.25 buffer_sharing=0 "
            "device_wait=0 baselines=0");
  const PhaseTimes back = parse_phase_times(text + " unknown=7 broken");
  EXPECT_EQ(back.milliseconds, times.milliseconds);
  EXPECT_DOUBLE_EQ(back.total(), 1015.75);
}

}  // namespace
}  // namespace rkt
