// The parent side of supervision: runs test cases in child processes and keeps every verdict.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "rkt/defaults.h"

#include "framework/base/phase_times.h"
#include "framework/cases/case_outcome.h"

namespace rkt {

/// The verdict on one case, as the supervisor saw it.
struct CaseRecord {
  std::string name;    ///< "suite.test"
  std::string status;  ///< "passed", "failed", "skipped", or "crashed" (no verdict: see message)
  double milliseconds = 0;
  std::string message;
  CaseDetails details{};  ///< Dims, scale, seed, reproduce (framework/supervision/case_records_json.h).
  PhaseTimes phases{};    ///< Where the case's time went in its process (base/phase_times.h).
};

/// How long a child may take to start (load LibTorch, register its cases) before its first case.
inline constexpr int kChildStartupSeconds = 120;  // [s]

/// What a supervised run reports while it runs (SupervisionOptions::on_progress).
struct CaseProgress {
  enum class Event { started, still_running, ended };
  Event event = Event::started;
  std::string case_name;   ///< "relu/cpu_naive.property_shapes"
  std::string status;      ///< Event::ended: "passed", "failed", "skipped" or "crashed";
                           ///< Event::still_running: what it waits for, when it waits for its
                           ///< GPU ("waiting for sole use of gpu-... (another judge is ...)")
  double seconds = 0;      // [s] since the case started
};

struct SupervisionOptions {
  std::string executable;                ///< A binary whose main() calls run_child_if_requested.
  std::string gtest_filter = "*";        ///< Which cases to run.
  std::vector<std::string> extra_args;   ///< Passed to every child (e.g. --gtest_color=no).
  int case_timeout_seconds = 300;        // [s] a case silent this long is killed as hung
  /// Cases with a limit of their own (the main job's benchmark, which runs in the same child as
  /// the kernel's cases): full name -> [s]. Others get case_timeout_seconds.
  std::map<std::string, int> case_timeout_overrides;
  /// Cases that run only in a run where no case died (full names; the main job's benchmark: a
  /// kernel whose case crashed or hung is not timed). After a child dies in a case, those not
  /// run yet are recorded as skipped ("not run: <case> crashed before it") and never started.
  std::set<std::string> cases_needing_a_clean_run;
  bool echo_child_output = true;         ///< false: child stdout/stderr go to /dev/null.
  /// Called after a child that died in a case (crash, hang, early exit), before the next child
  /// starts: a lender replaces the worker it lent (framework/supervision/worker_loan.h).
  std::function<void()> after_abnormal_end;
  /// Called with each case's record as soon as it is known (ended, crashed, or not run), before
  /// the next case's: a caller keeps its results file current, so that a killed judge's finished
  /// cases survive (framework/runs/main_job.cpp).
  std::function<void(const CaseRecord&)> on_case_recorded;
  /// Called as each case starts and ends, and every progress_interval_seconds while one runs:
  /// the main job's heartbeat (framework/runs/main_job.cpp). Unset: nothing is reported.
  std::function<void(const CaseProgress&)> on_progress;
  int progress_interval_seconds = defaults::kCaseHeartbeatSeconds;  // [s]
};

/// The limit of case `name` under `options`: its override, else case_timeout_seconds. [s]
int case_timeout_for(const SupervisionOptions& options, const std::string& name);

struct SupervisedRun {
  std::vector<CaseRecord> cases;
  int processes = 0;  ///< Child processes started (a crash restarts the remaining cases).
  int processes_started_ahead = 0;  ///< Of `processes`, those started ahead (start_child_ahead).
  /// Failures of the run itself (a process that died outside any case, ...).
  std::vector<std::string> problems;

  int count(const std::string& status) const;
};

/// Runs the cases matching the filter in child processes, one after another. When a child dies
/// in a case (crash, hang, early exit, forged exit status), that case is recorded as "crashed"
/// and a new child runs the cases not yet run. Results already produced are never lost. After a
/// case killed as hung, the other cases of the same kernel are not run: each is recorded as
/// "skipped" with "not run: <case> hung after N s" (a hanging kernel would otherwise hold the
/// machine for its case count times the timeout).
SupervisedRun run_supervised(const SupervisionOptions& options);

/// Starts children ahead of the next runs of run_supervised with `executable` until `waiting`
/// of them wait: their exec, LibTorch and CUDA context then overlap what this process does
/// meanwhile (starting the worker, the previous kernel's cases), and a run hands the oldest its
/// cases instead of forking one (framework/supervision/started_ahead.h). Call from the thread
/// that will wait for the runs: a child ends with that thread. Does nothing under
/// RKT_START_AHEAD=0.
void start_child_ahead(const std::string& executable, std::size_t waiting = 1);

/// Ends the children started ahead that no run took; returns how many there were.
std::size_t discard_children_started_ahead();

/// 0 when every case passed (skips allowed, at least one pass), 77 when all were skipped,
/// 1 otherwise (any failure or crash, or no case at all).
int supervised_exit_code(const SupervisedRun& run);

/// One line per case and a closing "N passed, N failed, N skipped" line.
std::string summarize(const SupervisedRun& run);

}  // namespace rkt
