// Cases whose work runs in a process of its own (the sanitizer cases: one call in a worker under
// compute-sanitizer, 1-2 s each on the H200) need not wait their turn. Once gtest has chosen the
// child's cases, those it will run start on helper threads, beside the cases the main thread
// runs (separate processes share the GPU); each one's gtest case then collects its outcome,
// waiting only for what is left of it. Messages, records and the order of the case list stay as
// they were; a case's recorded time is its wait, and its message keeps the tool's own time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/cases/case_outcome.h"

namespace rkt {

/// At most this many cases run beside the main thread at once (each holds a worker process
/// under compute-sanitizer), and never more than the machine's cores less one.
inline constexpr int kCasesBesideAtOnce = 3;  // [cases]

/// Offers `run`, the work of the gtest case `full_name` ("suite.name"), to be started early.
/// Call while registering cases, before RUN_ALL_TESTS.
void offer_case_beside(const std::string& full_name, std::function<CaseOutcome()> run);

/// Starts the offered cases among `selected` (full names), in the order they were offered, on at
/// most kCasesBesideAtOnce helper threads.
void start_cases_beside(const std::vector<std::string>& selected);

/// Waits for the cases running beside; those queued but not started are dropped (asked for
/// later, they run on the asking thread).
void finish_cases_beside();

/// Installs the gtest listener that starts the offered cases gtest will run (after its filter;
/// in registration order) when the test program starts, and waits for those running when it
/// ends (those not started by then are dropped). Call once, before RUN_ALL_TESTS.
void install_cases_beside();

/// A case run beside the others: its outcome, and how long it ran there (its record's time: the
/// gtest case that collects it often takes no time; run 46's records said 0 ms for sanitizer
/// cases of 4-5 s).
struct CaseRunBeside {
  CaseOutcome outcome;
  double milliseconds = 0;  // [ms]
};

/// The offered case `full_name` run: waits for it when it has started, runs it on this thread
/// when it has not. Never throws; an exception of the work becomes a failure.
CaseRunBeside outcome_of_case_beside(const std::string& full_name);

}  // namespace rkt
