#include "framework/runs/run_comparison.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "framework/base/number_text.h"
#include "framework/base/option_parsing.h"
#include "framework/runs/run_folder.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::string fixed(double value, int digits) { return fixed_digits(value, digits); }

// "0.0123" with four significant digits, for medians in milliseconds.
std::string significant(double value) {
  if (!std::isfinite(value)) return "-";
  std::ostringstream text;
  text << std::setprecision(4) << value;
  return text.str();
}

std::string signed_percent(double ratio) {
  if (!std::isfinite(ratio) || ratio <= 0) return "-";
  const double percent = 100 * (ratio - 1);
  return (percent >= 0 ? "+" : "") + fixed(percent, 1) + "%";
}

// The median's ~95% interval, from the recorded median and relative noise.
double interval_low(const SampleSummary& time) { return time.median * (1 - time.relative_noise); }
double interval_high(const SampleSummary& time) { return time.median * (1 + time.relative_noise); }

// A median, or a ratio of two medians, with its ~95% interval.
struct TimeInterval {
  double value = 0, low = 0, high = 0;
};

TimeInterval median_interval(const SampleSummary& time) {
  return {time.median, interval_low(time), interval_high(time)};
}

// kernel median / baseline median, the interval from both medians' intervals at their worst
// (the kernel's low end over the baseline's high end, and the other way round).
TimeInterval ratio_interval(const SampleSummary& kernel, const SampleSummary& baseline) {
  return {kernel.median / baseline.median, interval_low(kernel) / interval_high(baseline),
          interval_high(kernel) / interval_low(baseline)};
}

// A time with a median and a noise that bounds an interval of positive times.
bool comparable(const SampleSummary& time) {
  return time.median > 0 && std::isfinite(time.relative_noise) && time.relative_noise >= 0 &&
         time.relative_noise < 1;
}

const BaselineResult* timed_baseline(const KernelReport& kernel, const std::string& name) {
  if (!kernel.benchmark.measured) return nullptr;
  for (const BaselineResult& baseline : kernel.benchmark.baselines) {
    if (baseline.name == name && baseline.available && comparable(baseline.time)) return &baseline;
  }
  return nullptr;
}

// The baseline a kernel's ratio is taken against: of those both runs timed beside it, the one
// with the lowest median in BASE (its strongest there). Sets nothing when there is none.
void choose_baseline(KernelComparison& row, const KernelReport& before, const KernelReport& after) {
  for (const BaselineResult& candidate : before.benchmark.baselines) {
    const BaselineResult* base = timed_baseline(before, candidate.name);
    const BaselineResult* fresh = timed_baseline(after, candidate.name);
    if (base == nullptr || fresh == nullptr) continue;
    if (row.baseline.empty() || base->time.median < row.base_baseline_time.median) {
      row.baseline = candidate.name;
      row.base_baseline_time = base->time;
      row.new_baseline_time = fresh->time;
    }
  }
}

std::string key_of(const KernelReport& kernel) { return kernel.full_id() + " " + kernel.device; }

// Where a new interval lies against the base one: above it (slower) by more than the tolerance,
// wholly below it (faster), or overlapping it.
enum class Movement { slower, faster, within };

Movement movement(const TimeInterval& base, const TimeInterval& fresh, double tolerance) {
  if (fresh.low > base.high * (1 + tolerance)) return Movement::slower;
  if (fresh.high < base.low) return Movement::faster;
  return Movement::within;
}

// Under the default basis a kernel is slower (or faster) only when its own median and its ratio
// to the baseline both moved beyond the noise each run measured. The ratio alone is fooled by a
// baseline that drifts on its own (identical code read "+18% slower" when eager_fp32 ran 12%
// faster in the new run); the median alone by a machine that drifts as a whole. A real slowdown
// of the kernel moves both; drift of one side moves one. When only one moved, the row says which.
void judge_times(KernelComparison& row, double tolerance, TimeBasis basis) {
  if (!(row.base_time.median > 0) || !(row.new_time.median > 0) ||
      !std::isfinite(row.base_time.relative_noise) ||
      !std::isfinite(row.new_time.relative_noise)) {
    row.result = "no comparable times";
    return;
  }
  // Calls this short in both runs are mostly per-call cost (dispatch, cold caches after the
  // flush, where the process's buffers landed), which moves between processes more than any
  // noise one run measures: identical code read "+31% slower" (relu/cpu_loops, 0.040 -> 0.053
  // ms, 2-core machine, 2026-12-03). A kernel whose calls grew past the limit is judged.
  if (row.base_time.median < defaults::kShortBenchmarkCallMilliseconds &&
      row.new_time.median < defaults::kShortBenchmarkCallMilliseconds) {
    row.result = "not judged: calls under " + fixed(defaults::kShortBenchmarkCallMilliseconds, 1) +
                 " ms in both runs are mostly per-call cost, which moves between processes";
    return;
  }
  const Movement median =
      movement(median_interval(row.base_time), median_interval(row.new_time), tolerance);
  row.judged_on_ratio = basis == TimeBasis::baseline_ratio && !row.baseline.empty();
  if (!row.judged_on_ratio) {
    row.result = median == Movement::slower   ? "slower beyond noise"
                 : median == Movement::faster ? "faster beyond noise"
                                              : "within noise";
    row.regression = median == Movement::slower;
    // Under the default basis, a kernel without a common baseline says what decided it.
    if (basis == TimeBasis::baseline_ratio) row.result += " (absolute)";
    return;
  }
  const Movement ratio = movement(ratio_interval(row.base_time, row.base_baseline_time),
                                  ratio_interval(row.new_time, row.new_baseline_time), tolerance);
  if (median == ratio && median != Movement::within) {
    row.result = median == Movement::slower ? "slower beyond noise" : "faster beyond noise";
    row.regression = median == Movement::slower;
  } else if (median != Movement::within) {
    row.result = std::string("within noise (the median moved ") +
                 (median == Movement::slower ? "up" : "down") + " beyond noise, the ratio to " +
                 row.baseline + " did not: the machine drifted)";
  } else if (ratio != Movement::within) {
    row.result = std::string("within noise (the ratio to ") + row.baseline + " moved " +
                 (ratio == Movement::slower ? "up" : "down") +
                 " beyond noise, the kernel's median did not: the baseline drifted)";
  } else {
    row.result = "within noise";
  }
}

}  // namespace

RunComparison compare_runs(const RunReport& base, const RunReport& fresh,
                           double slowdown_tolerance, TimeBasis basis) {
  RunComparison comparison;
  comparison.basis = basis;
  std::vector<std::string> judged_absolute;  // Under the default basis, for want of a baseline.
  std::map<std::string, const KernelReport*> base_kernels;
  for (const KernelReport& kernel : base.kernels) base_kernels[key_of(kernel)] = &kernel;
  std::map<std::string, bool> seen;
  for (const KernelReport& kernel : fresh.kernels) {
    KernelComparison row;
    row.id = kernel.full_id();
    row.device = kernel.device;
    row.new_verdict = kernel.verdict();
    row.new_measured = kernel.benchmark.measured;
    row.new_time = kernel.benchmark.time;
    const auto found = base_kernels.find(key_of(kernel));
    const KernelReport* before = found == base_kernels.end() ? nullptr : found->second;
    seen[key_of(kernel)] = true;
    if (before != nullptr) {
      row.base_verdict = before->verdict();
      row.base_measured = before->benchmark.measured;
      row.base_time = before->benchmark.time;
      choose_baseline(row, *before, kernel);
    }
    if (row.new_verdict == "FAIL") {
      row.regression = true;
      row.result = before == nullptr              ? "FAILS (new kernel)"
                   : row.base_verdict == "FAIL"   ? "FAILS (failed on base too)"
                   : row.base_verdict == "pass"   ? "FAILS (passed on base)"
                                                  : "FAILS (skipped on base)";
    } else if (row.new_verdict == "skipped") {
      row.regression = row.base_verdict == "pass";
      row.result = row.regression ? "SKIPPED (passed on base: nothing ran)" : "skipped";
    } else if (!row.new_measured) {
      // Judged and passed, but not timed (the benchmark refused, for one): a gate that read
      // "no regression" here would pass a slowdown nobody measured.
      row.regression = true;
      row.result = "NOT TIMED (" +
                   (kernel.benchmark.problem.empty() ? std::string("no benchmark record")
                                                     : kernel.benchmark.problem) +
                   ")";
    } else if (before == nullptr) {
      row.result = "new kernel";
    } else if (row.base_measured) {
      judge_times(row, slowdown_tolerance, basis);
      if (basis == TimeBasis::baseline_ratio && !row.judged_on_ratio) {
        judged_absolute.push_back(row.id + " (" + row.device + ")");
      }
    } else {
      row.result = "not measured on base";
    }
    if (row.regression) {
      // A slowdown names what moved: the ratio it was judged on and the median beside it.
      std::string moved;
      if (row.result.rfind("slower", 0) == 0) {
        moved = " (";
        if (row.judged_on_ratio) {
          moved += "ratio to " + row.baseline + " " +
                   signed_percent(ratio_interval(row.new_time, row.new_baseline_time).value /
                                  ratio_interval(row.base_time, row.base_baseline_time).value) +
                   ", ";
        }
        moved += "median " + signed_percent(row.new_time.median / row.base_time.median) + ")";
      }
      comparison.regressions.push_back(row.id + " (" + row.device + "): " + row.result + moved);
    }
    comparison.kernels.push_back(row);
  }
  for (const KernelReport& kernel : base.kernels) {
    if (seen.count(key_of(kernel)) != 0) continue;
    KernelComparison row;
    row.id = kernel.full_id();
    row.device = kernel.device;
    row.base_verdict = kernel.verdict();
    row.base_measured = kernel.benchmark.measured;
    row.base_time = kernel.benchmark.time;
    // A kernel the new run lacks was not judged at all: dropped, renamed or left out by a
    // selection, the gate cannot say it still passes.
    row.result = "MISSING from the new run";
    row.regression = true;
    comparison.regressions.push_back(row.id + " (" + row.device + "): missing from the new run (" +
                                     row.base_verdict + " on base)");
    comparison.kernels.push_back(row);
  }
  if (!judged_absolute.empty()) {
    std::string kernels;
    for (const std::string& id : judged_absolute) kernels += (kernels.empty() ? "" : ", ") + id;
    comparison.notes.push_back("no baseline was timed (with a measured noise) beside " + kernels +
                               " in both runs: judged on absolute medians, which machine drift "
                               "moves too");
  }
  if (!fresh.finished) {
    comparison.regressions.push_back(
        "the new run did not finish (\"finished\": false): kernels may be missing");
  }
  if (!base.finished) comparison.notes.push_back("the base run did not finish");
  for (const auto& [device, peaks] : fresh.peaks) {
    const auto before = base.peaks.find(device);
    if (before != base.peaks.end() && before->second.device_name != peaks.device_name) {
      comparison.notes.push_back(device + " times were measured on different devices ('" +
                                 before->second.device_name + "' on base, '" + peaks.device_name +
                                 "' now): they compare machines as much as kernels");
    }
  }
  if (base.isolation.substr(0, base.isolation.find(' ')) !=
      fresh.isolation.substr(0, fresh.isolation.find(' '))) {
    comparison.notes.push_back("the runs used different isolation modes (base: " +
                               base.isolation.substr(0, base.isolation.find(' ')) + ", new: " +
                               fresh.isolation.substr(0, fresh.isolation.find(' ')) + ")");
  }
  return comparison;
}

std::string comparison_markdown(const RunComparison& comparison, const std::string& base_label,
                                const RunReport& base, const std::string& new_label,
                                const RunReport& fresh) {
  std::ostringstream out;
  const auto run_line = [&out](const char* name, const std::string& label, const RunReport& run) {
    out << "- " << name << ": `" << label << "` (started " << run.started_utc << ", seed "
        << run.seed << ", " << run.kernels.size() << " kernels"
        << (run.finished ? "" : ", UNFINISHED") << ")\n";
  };
  out << "## rkt compare\n\n";
  run_line("base", base_label, base);
  run_line("new", new_label, fresh);
  out << "\n"
      << (comparison.basis == TimeBasis::baseline_ratio
              ? "Each kernel is judged on its median and on its ratio to the strongest baseline "
                "both runs timed beside it (kernel median / baseline median, within each run): "
                "slower or faster only when the ~95% intervals of the two medians and those of "
                "the two ratios both lie apart in the same direction. Drift of the machine moves "
                "the median alone, drift of the baseline the ratio alone (`--absolute` judges on "
                "the medians alone).\n\n"
              : "Each kernel is judged on its absolute median (`--absolute`): slower or faster "
                "only when the ~95% intervals of the two medians do not overlap. The ratios to "
                "the strongest baseline both runs timed are shown beside them.\n\n")
      << "A kernel whose calls took under " << fixed(defaults::kShortBenchmarkCallMilliseconds, 1)
      << " ms in both runs is not judged on time: such calls are mostly per-call cost, which "
         "moves between processes beyond the noise one run measures (benchmark it at larger "
         "dims to compare it).\n\n"
      << "| kernel | device | base | new | base median ms [95% CI] | new median ms [95% CI] | "
         "change | baseline | baseline change | base ratio [95% CI] | new ratio [95% CI] | "
         "ratio change | result |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto interval_text = [](const TimeInterval& interval) {
    return significant(interval.value) + " [" + significant(interval.low) + ", " +
           significant(interval.high) + "]";
  };
  for (const KernelComparison& row : comparison.kernels) {
    const bool both = row.base_measured && row.new_measured && row.base_time.median > 0;
    const bool ratios = both && !row.baseline.empty();
    const TimeInterval base_ratio = ratio_interval(row.base_time, row.base_baseline_time);
    const TimeInterval new_ratio = ratio_interval(row.new_time, row.new_baseline_time);
    out << "| " << row.id << " | " << row.device << " | "
        << (row.base_verdict.empty() ? "-" : row.base_verdict) << " | "
        << (row.new_verdict.empty() ? "-" : row.new_verdict) << " | "
        << (row.base_measured ? interval_text(median_interval(row.base_time)) : "-") << " | "
        << (row.new_measured ? interval_text(median_interval(row.new_time)) : "-") << " | "
        << (both ? signed_percent(row.new_time.median / row.base_time.median) : "-") << " | "
        << (ratios ? row.baseline : "-") << " | "
        << (ratios ? signed_percent(row.new_baseline_time.median / row.base_baseline_time.median)
                   : "-")
        << " | " << (ratios ? interval_text(base_ratio) : "-") << " | "
        << (ratios ? interval_text(new_ratio) : "-") << " | "
        << (ratios ? signed_percent(new_ratio.value / base_ratio.value) : "-") << " | "
        << (row.regression ? "**" + row.result + "**" : row.result) << " |\n";
  }
  for (const std::string& note : comparison.notes) out << "\nNote: " << note << ".\n";
  if (comparison.regressions.empty()) {
    out << "\n**No regression** (" << comparison.kernels.size() << " kernels compared).\n";
  } else {
    out << "\n**Regression** (" << comparison.regressions.size() << "):\n\n";
    for (const std::string& regression : comparison.regressions) out << "- " << regression << "\n";
  }
  return out.str();
}

int run_compare_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  std::vector<std::string> paths;
  std::string error;
  if (!parse_arguments(args, {"--tolerance"}, {"--absolute"}, values, paths, error)) {
    return report_usage_error("compare: " + error);
  }
  if (paths.size() != 2) {
    return report_usage_error("compare takes two results (BASE and NEW: results.json files or run "
                              "folders), got " + std::to_string(paths.size()));
  }
  double tolerance = kCompareSlowdownTolerance;
  if (values.count("--tolerance")) {
    const std::string& text = values["--tolerance"];
    std::size_t used = 0;
    double percent = -1;
    try {
      percent = std::stod(text, &used);
    } catch (const std::exception&) {
    }
    if (used != text.size() || !(percent >= 0)) {
      return report_usage_error("--tolerance takes a percentage >= 0 (e.g. 5), not '" + text + "'");
    }
    tolerance = percent / 100;
  }
  RunReport base, fresh;
  for (const auto& [label, report] : {std::pair<std::string, RunReport*>{paths[0], &base},
                                      std::pair<std::string, RunReport*>{paths[1], &fresh}}) {
    try {
      *report = read_run_results(label);
    } catch (const std::invalid_argument& problem) {
      std::cerr << "rkt compare: cannot read " << (report == &base ? "BASE" : "NEW") << ": "
                << problem.what() << "\n";
      return 2;
    }
  }
  const RunComparison comparison = compare_runs(
      base, fresh, tolerance,
      values.count("--absolute") ? TimeBasis::absolute_median : kCompareTimeBasis);
  std::cout << comparison_markdown(comparison, paths[0], base, paths[1], fresh);
  if (!comparison.regressions.empty()) {
    std::cerr << "rkt compare: regression: " << comparison.regressions.size()
              << " finding(s), first: " << comparison.regressions.front() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace rkt
