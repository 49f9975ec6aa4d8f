// `rkt compare BASE NEW`: the merge gate. Per kernel, is the new run slower than the base beyond
// the measured noise, and does any gate or case fail in the new run?
//
// What is compared: each run times its task's baselines beside every kernel, on the same machine
// at the same time. So by default a kernel's time is judged as its ratio to a baseline of the
// same run (kernel median / baseline median), which cancels the drift of a shared or different
// machine between the two runs (a run compared with itself once read "+16% slower" while its
// eager baseline had drifted +32%). The baseline is the strongest that both runs timed beside the
// kernel: the lowest median in BASE among the baselines measured in both. A kernel with no such
// baseline, and every kernel under --absolute, is judged on its absolute median instead.
//
// The rule: each median is recorded with its relative noise (half-width of its ~95%
// distribution-free interval, divided by the median; docs/results_schema.md). A ratio's interval
// runs from the kernel's low end over the baseline's high end to the kernel's high end over the
// baseline's low end (both noises, combined at their worst). A median (or a ratio) moved "up
// beyond noise" when the low end of the new interval lies above the high end of the base interval
// (widened by --tolerance), "down" the other way round. A kernel is "slower beyond noise" when
// its median and its ratio both moved up (under --absolute, or without a common baseline, the
// median alone decides): drift of the machine moves the median alone, drift of the baseline the
// ratio alone, a slower kernel both. A regression is a kernel slower beyond noise, any kernel
// whose verdict in NEW is FAIL, a kernel that passed in NEW but was not timed (its benchmark
// refused or produced nothing: nothing was measured), a kernel of BASE missing from NEW, a
// kernel that passed on base and is skipped in NEW (nothing ran: a gate must not pass on no
// evidence), or a NEW run that did not finish.
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

/// What a kernel's time is judged on: by default its ratio to a baseline of the same run
/// (machine drift cancels); `--absolute`: its median alone.
enum class TimeBasis { baseline_ratio, absolute_median };

/// The basis `rkt compare` judges on without --absolute.
inline constexpr TimeBasis kCompareTimeBasis = TimeBasis::baseline_ratio;

struct KernelComparison {
  std::string id;      ///< "task/kernel"
  std::string device;
  std::string base_verdict;  ///< "" when the kernel is not in the base run.
  std::string new_verdict;   ///< "" when the kernel is not in the new run.
  bool base_measured = false, new_measured = false;
  SampleSummary base_time, new_time;
  /// The baseline timed beside the kernel in both runs that the ratio is taken against (the
  /// strongest in BASE among them), with its time in each run; "" when there is none.
  std::string baseline;
  SampleSummary base_baseline_time, new_baseline_time;
  bool judged_on_ratio = false;  ///< false: the absolute medians decided (or nothing was judged).
  std::string result;  ///< "slower beyond noise", "within noise", "FAILS (passed on base)", ...
  bool regression = false;
};

struct RunComparison {
  TimeBasis basis = kCompareTimeBasis;
  std::vector<KernelComparison> kernels;
  std::vector<std::string> regressions;  ///< One sentence each, naming the kernel.
  std::vector<std::string> notes;        ///< What a reader should know (different devices, ...).
};

/// Compares every kernel of `base` and `fresh` (matched by task/kernel and device).
RunComparison compare_runs(const RunReport& base, const RunReport& fresh,
                           double slowdown_tolerance, TimeBasis basis = kCompareTimeBasis);

/// A Markdown section (usable as a GitHub job summary): a line per run, the rule, the table (the
/// absolute medians and the ratios side by side), the notes and the verdict ("No regression" or
/// "Regression: ...").
std::string comparison_markdown(const RunComparison& comparison, const std::string& base_label,
                                const RunReport& base, const std::string& new_label,
                                const RunReport& fresh);

/// The subcommand: 0 no regression, 1 regression, 2 usage or input error (message on stderr).
int run_compare_command(const std::vector<std::string>& args);

}  // namespace rkt
