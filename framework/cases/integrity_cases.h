// The integrity cases: one per gate, each built to catch a known way of gaming a benchmark.
#pragma once

#include <cstdint>

#include "framework/cases/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// Runs `gate`'s case for `kernel` at the kernel's test dims. A waived gate is reported as
/// skipped with the kernel's written reason. Never throws.
CaseOutcome run_integrity_case(const KernelSpec& kernel, const TaskSpec& task, IntegrityGate gate);

/// How long the CPU escaped-work check waits for late writes after the kernel returned.
inline constexpr int kLateWriteWaitMilliseconds = 200;  // [ms]
/// On CUDA, with the call's device work traced (framework/runtime/off_stream_work_trace.h), work
/// is "escaped" when something it started off the given stream ends more than this after the
/// call has finished on that stream, on the GPU's clock, in any of kEscapedWorkTimedCalls calls.
inline constexpr double kEscapedWorkOverrunMilliseconds = 0.01;  // [ms]
/// Without a trace (no CUPTI), on the host's clock: work is "escaped" when finishing it on the
/// whole device takes longer than kEscapedWorkFactor x its time on the kernel's stream plus
/// kEscapedWorkSlack; the case then holds the GPU alone (case_catalog.cpp).
inline constexpr double kEscapedWorkFactor = 3.0;          // [x stream time]
inline constexpr double kEscapedWorkSlackMilliseconds = 1.0;  // [ms]
/// Host clock: timed calls of which the best must be within the bound: work off the stream delays
/// every call, while a loaded CPU (the device-wide time is read on the host) or another process on
/// the GPU delays some. The gate stops at the first call within the bound: kEscapedWorkTimedCalls
/// calls back to back, then up to kEscapedWorkMostTimedCalls in all,
/// kEscapedWorkRetryPauseMilliseconds apart, so that a burst of load passes; a kernel that leaves
/// work behind fails them all.
inline constexpr int kEscapedWorkTimedCalls = 3;               // [calls]
inline constexpr int kEscapedWorkMostTimedCalls = 12;          // [calls]
inline constexpr int kEscapedWorkRetryPauseMilliseconds = 20;  // [ms]
/// Calls compared by the determinism gate.
inline constexpr int kDeterminismRuns = 3;  // [calls]
/// The replay gate's last calls each change one element of each input in place.
inline constexpr int kReplaySingleElementCalls = 3;  // [calls]

}  // namespace rkt
