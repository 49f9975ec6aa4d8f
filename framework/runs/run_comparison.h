// `rkt compare BASE NEW`: the merge gate. Per kernel, is the new run slower than the base beyond
// the measured noise, and does any gate or case fail in the new run?
//
// The rule: each median is recorded with its relative noise (half-width of its ~95%
// distribution-free interval, divided by the median; docs/results_schema.md). A kernel is
// "slower beyond noise" when the low end of the new interval lies above the high end of the
// base interval (widened by --tolerance); "faster beyond noise" the other way round; otherwise
// "within noise". A regression is a kernel slower beyond noise, any kernel whose verdict in NEW
// is FAIL, a kernel that passed on base and is skipped in NEW (nothing ran: a gate must not pass
// on no evidence), or a NEW run that did not finish.
#pragma once

#include <string>
#include <vector>

#include "framework/runs/run_report.h"

namespace rkt {

/// The default of --tolerance: how far the base median's interval is widened before a new
/// median counts as slower (0: the measured noise alone decides). Raise it where base and new
/// runs come from different machines of one type. (Here rather than in rkt/defaults.h: only
/// `rkt compare` reads it, and no kernel or task depends on it.)
inline constexpr double kCompareSlowdownTolerance = 0.0;  // [fraction of the base median]

struct KernelComparison {
  std::string id;      ///< "task/kernel"
  std::string device;
  std::string base_verdict;  ///< "" when the kernel is not in the base run.
  std::string new_verdict;   ///< "" when the kernel is not in the new run.
  bool base_measured = false, new_measured = false;
  SampleSummary base_time, new_time;
  /// The eager_fp32 baseline's median in each run, when measured in both (machine drift).
  double base_eager_ms = 0, new_eager_ms = 0;
  std::string result;  ///< "slower beyond noise", "within noise", "FAILS (passed on base)", ...
  bool regression = false;
};

struct RunComparison {
  std::vector<KernelComparison> kernels;
  std::vector<std::string> regressions;  ///< One sentence each, naming the kernel.
  std::vector<std::string> notes;        ///< What a reader should know (different devices, ...).
};

/// Compares every kernel of `base` and `fresh` (matched by task/kernel and device).
RunComparison compare_runs(const RunReport& base, const RunReport& fresh,
                           double slowdown_tolerance);

/// A Markdown section (usable as a GitHub job summary): a line per run, the table, the notes and
/// the verdict ("No regression" or "Regression: ...").
std::string comparison_markdown(const RunComparison& comparison, const std::string& base_label,
                                const RunReport& base, const std::string& new_label,
                                const RunReport& fresh);

/// The subcommand: 0 no regression, 1 regression, 2 usage or input error (message on stderr).
int run_compare_command(const std::vector<std::string>& args);

}  // namespace rkt
