// The child side of supervision: case verdicts written to a pipe only the framework knows of.
//
// Why: a kernel runs inside the test process, so it can end that process early (exit(0),
// quick_exit, _exit) and leave gtest's exit status looking like success. The supervisor therefore
// trusts only the records written here, tagged with a nonce it handed to this process; a process
// that ends without its final record has no verdict and fails.
#pragma once

#include <string>

namespace rkt {

/// Environment variables through which the supervisor hands the channel to its child.
inline constexpr const char* kVerdictFdVariable = "RKT_VERDICT_FD";
inline constexpr const char* kVerdictNonceVariable = "RKT_VERDICT_NONCE";

/// Reads (and removes from the environment) the channel's fd and nonce, and adds a gtest listener
/// that writes a record as each case starts and ends, and, in between, one with the inputs the
/// case is about to run its kernel on each time it draws them (cases/case_announcement.h).
/// Returns false when not supervised.
bool install_verdict_reporter();

/// Writes the final record. Call once RUN_ALL_TESTS has returned.
void report_run_complete();

/// The gtest property under which a passing case leaves its summary (error norms, timings); the
/// reporter appends it to the case's record.
inline constexpr const char* kCaseSummaryProperty = "rkt_summary";
/// The gtest property under which a case run beside the others leaves how long it ran there
/// [ms]; the reporter records it as the case's time instead of its gtest case's.
inline constexpr const char* kCaseRanBesideMillisecondsProperty = "rkt_ran_beside_ms";

}  // namespace rkt
