#include "framework/runs/run_comparison.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "framework/base/option_parsing.h"
#include "framework/runs/run_folder.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

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

double eager_median(const KernelReport& kernel) {
  for (const BaselineResult& baseline : kernel.benchmark.baselines) {
    if (baseline.name == "eager_fp32" && baseline.available) return baseline.time.median;
  }
  return 0;
}

std::string key_of(const KernelReport& kernel) { return kernel.full_id() + " " + kernel.device; }

void judge_times(KernelComparison& row, double tolerance) {
  const SampleSummary& base = row.base_time;
  const SampleSummary& fresh = row.new_time;
  if (!(base.median > 0) || !(fresh.median > 0) || !std::isfinite(base.relative_noise) ||
      !std::isfinite(fresh.relative_noise)) {
    row.result = "no comparable times";
    return;
  }
  if (interval_low(fresh) > interval_high(base) * (1 + tolerance)) {
    row.result = "slower beyond noise";
    row.regression = true;
  } else if (interval_high(fresh) < interval_low(base)) {
    row.result = "faster beyond noise";
  } else {
    row.result = "within noise";
  }
}

}  // namespace

RunComparison compare_runs(const RunReport& base, const RunReport& fresh,
                           double slowdown_tolerance) {
  RunComparison comparison;
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
    row.new_eager_ms = eager_median(kernel);
    const auto found = base_kernels.find(key_of(kernel));
    const KernelReport* before = found == base_kernels.end() ? nullptr : found->second;
    seen[key_of(kernel)] = true;
    if (before != nullptr) {
      row.base_verdict = before->verdict();
      row.base_measured = before->benchmark.measured;
      row.base_time = before->benchmark.time;
      row.base_eager_ms = eager_median(*before);
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
    } else if (before == nullptr) {
      row.result = "new kernel";
    } else if (row.base_measured && row.new_measured) {
      judge_times(row, slowdown_tolerance);
    } else {
      row.result = row.new_measured ? "not measured on base" : "not measured";
    }
    if (row.regression) {
      comparison.regressions.push_back(row.id + " (" + row.device + "): " + row.result);
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
    row.result = "not in the new run";
    comparison.kernels.push_back(row);
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
  out << "\nA kernel is slower or faster only when the ~95% intervals of the two medians do not "
         "overlap.\n\n"
         "| kernel | device | base | new | base median ms [95% CI] | new median ms [95% CI] | "
         "change | eager_fp32 change | result |\n|---|---|---|---|---|---|---|---|---|\n";
  const auto median_text = [](bool measured, const SampleSummary& time) {
    if (!measured) return std::string("-");
    return significant(time.median) + " [" + significant(interval_low(time)) + ", " +
           significant(interval_high(time)) + "]";
  };
  for (const KernelComparison& row : comparison.kernels) {
    const bool both = row.base_measured && row.new_measured && row.base_time.median > 0;
    out << "| " << row.id << " | " << row.device << " | "
        << (row.base_verdict.empty() ? "-" : row.base_verdict) << " | "
        << (row.new_verdict.empty() ? "-" : row.new_verdict) << " | "
        << median_text(row.base_measured, row.base_time) << " | "
        << median_text(row.new_measured, row.new_time) << " | "
        << (both ? signed_percent(row.new_time.median / row.base_time.median) : "-") << " | "
        << (row.base_eager_ms > 0 && row.new_eager_ms > 0
                ? signed_percent(row.new_eager_ms / row.base_eager_ms)
                : "-")
        << " | " << (row.regression ? "**" + row.result + "**" : row.result) << " |\n";
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
  if (!parse_arguments(args, {"--tolerance"}, {}, values, paths, error)) {
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
  const RunComparison comparison = compare_runs(base, fresh, tolerance);
  std::cout << comparison_markdown(comparison, paths[0], base, paths[1], fresh);
  if (!comparison.regressions.empty()) {
    std::cerr << "rkt compare: regression: " << comparison.regressions.size()
              << " finding(s), first: " << comparison.regressions.front() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace rkt
