#include "framework/runs/run_report.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "framework/base/number_text.h"
#include "framework/base/recorded_number.h"
#include "framework/runs/report_notes.h"
#include "framework/supervision/case_records_json.h"
#include "framework/timing/sample_statistics.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int digits) { return fixed_digits(value, digits); }

// "0.05", "0.001", "10": a threshold or an axis tick, in as few digits as it needs.
std::string plain_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// The file's text: two-space indents; bytes that are not UTF-8 (a kernel's message may carry
// any) written as U+FFFD instead of refused.
std::string json_file_text(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// Numbers go through as_recorded (six significant digits). Fields derived from others are
// computed from the recorded values, so that the file agrees with itself and a program that
// reads it back (rkt merge) writes the same text again.
Json summary_json(const SampleSummary& s) {
  Json summary = Json::object();
  summary["median_ms"] = as_recorded(s.median);
  summary["q1_ms"] = as_recorded(s.first_quartile);
  summary["q3_ms"] = as_recorded(s.third_quartile);
  summary["iqr_ms"] = as_recorded(as_recorded(s.third_quartile) - as_recorded(s.first_quartile));
  summary["mean_ms"] = as_recorded(s.mean);
  summary["stddev_ms"] = as_recorded(s.stddev);
  summary["samples"] = s.count;
  summary["relative_noise"] = as_recorded(s.relative_noise);
  return summary;
}

Json interval_json(const RatioInterval& r) {
  Json interval = Json::object();
  interval["ratio"] = as_recorded(r.ratio);
  interval["low"] = as_recorded(r.low);
  interval["high"] = as_recorded(r.high);
  return interval;
}

// "N % 4 == 0, N <= 8192".
std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string html_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '&': escaped += "&amp;"; break;
      case '"': escaped += "&quot;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

const BaselineResult* find_baseline(const BenchmarkRecord& record, const std::string& name) {
  for (const BaselineResult& baseline : record.baselines) {
    if (baseline.name == name) return &baseline;
  }
  return nullptr;
}

// A baseline `kernel`'s benchmark did not measure, as another kernel of the same task and device
// measured it in this run (the first such kernel in the run's order): a baseline times the task's
// reference, not the kernel, so its median stands for the task; nullptr when none did.
const KernelReport* baseline_lender(const RunReport& report, const KernelReport& kernel,
                                    const std::string& name) {
  for (const KernelReport& other : report.kernels) {
    if (&other == &kernel || other.task != kernel.task || other.device != kernel.device ||
        !other.benchmark.measured) {
      continue;
    }
    const BaselineResult* baseline = find_baseline(other.benchmark, name);
    if (baseline && baseline->available) return &other;
  }
  return nullptr;
}

// A note as a Markdown list item: "- **subject** text" (the subject bold on a failure), the
// message's further lines indented so that they stay in the item, its lines as sub-items.
std::string note_markdown(const ReportNote& note) {
  std::string text = note.text;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) {
    if (at + 1 < text.size() && text[at + 1] != '\n') text.insert(at + 1, "  ");
  }
  std::string item = "- " + (note.failure ? "**" + note.subject + "**" : note.subject) + text + "\n";
  for (const ReportNoteLine& line : note.lines) {
    item += "  - " + line.label + ": " + (line.command ? "`" + line.value + "`" : line.value) + "\n";
  }
  return item;
}

// The same note as an HTML list item, every text escaped; a message keeps its line breaks.
std::string note_html(const ReportNote& note) {
  std::string item = note.failure ? "<li class=\"failure\"><b>" + html_escape(note.subject) + "</b>"
                                  : "<li>" + html_escape(note.subject);
  item += "<span class=\"message\">" + html_escape(note.text) + "</span>";
  if (!note.lines.empty()) {
    item += "<ul>";
    for (const ReportNoteLine& line : note.lines) {
      item += "<li>" + html_escape(line.label) + ": " +
              (line.command ? "<code>" + html_escape(line.value) + "</code>"
                            : html_escape(line.value)) +
              "</li>";
    }
    item += "</ul>";
  }
  return item + "</li>\n";
}

// "0/2/0": cases passed, failed (crashed among them) and skipped.
std::string case_counts(const KernelReport& kernel) {
  return std::to_string(kernel.cases.count("passed")) + "/" +
         std::to_string(kernel.cases.count("failed") + kernel.cases.count("crashed")) + "/" +
         std::to_string(kernel.cases.count("skipped"));
}

// "3.00x [2.85, 3.15] vs eager_fp32", "-" when the kernel was not timed against a baseline.
std::string speedup_vs_strongest_text(const BenchmarkRecord& b) {
  if (!b.measured || b.strongest_baseline.empty()) return "-";
  return fixed(b.speedup_vs_strongest.ratio, 2) + "x [" + fixed(b.speedup_vs_strongest.low, 2) +
         ", " + fixed(b.speedup_vs_strongest.high, 2) + "] vs " + b.strongest_baseline;
}

// "cuda: 1 kernel of excluded tasks left out ..." or "" when there are none.
std::string left_out_text(const DeviceAggregates& agg) {
  if (agg.excluded_left_out == 0 && agg.precision_blind == 0) return "";
  const auto kernels = [](int count) {
    return std::to_string(count) + (count == 1 ? " kernel" : " kernels");
  };
  return agg.device + ": " + kernels(agg.excluded_left_out) +
         " of excluded tasks left out of the summary; " + kernels(agg.precision_blind) +
         " on precision-blind tasks scored, their precision claims unverifiable.";
}

// "cuda: Synthetic GPU, copy 4000.0 GB/s, ..." for one device's measured peaks.
std::string peaks_text(const std::string& device, const DevicePeaks& peaks) {
  return device + ": " + peaks.device_name + ", copy " +
         fixed(peaks.copy_bytes_per_second / 1e9, 1) + " GB/s, fp32 " +
         fixed(peaks.fp32_flops_per_second / 1e12, 2) + " TFLOP/s, tf32 " +
         fixed(peaks.tf32_flops_per_second / 1e12, 2) + " TFLOP/s, harness overhead " +
         fixed(peaks.harness_overhead_ms * 1e3, 1) + " us per timed call";
}

// "42%" for fast_p[p], "-" when absent.
std::string fast_share(const DeviceAggregates& aggregates, const std::string& p) {
  const auto found = aggregates.fast_p.find(p);
  return found == aggregates.fast_p.end() ? "-" : fixed(100 * found->second, 0) + "%";
}

// "1.25x" for the geomean speedup against `baseline`, "-" when absent.
std::string geomean_speedup_text(const DeviceAggregates& aggregates, const std::string& baseline) {
  const auto found = aggregates.geomean_speedup.find(baseline);
  return found == aggregates.geomean_speedup.end() ? "-" : fixed(found->second, 2) + "x";
}

std::string memory_efficiency_text(const DeviceAggregates& aggregates) {
  return aggregates.geomean_memory_efficiency > 0
             ? fixed(aggregates.geomean_memory_efficiency, 2) + "x"
             : "-";
}

bool scored(const KernelReport& kernel) {
  return !kernel.task_excluded() && kernel.correct() && kernel.benchmark.measured &&
         !kernel.benchmark.impossible && kernel.benchmark.spot_check_failures == 0;
}

// "; shard 2/3 of 10 kernels" or "; merged from 3 shards"; "" for a whole run.
std::string shard_text(const RunReport& report) {
  if (report.shard_count > 0) {
    return "; shard " + std::to_string(report.shard_index) + "/" +
           std::to_string(report.shard_count) + " of " + std::to_string(report.selected_kernels) +
           " kernels";
  }
  if (report.merged_shards > 0) {
    return "; merged from " + std::to_string(report.merged_shards) + " shards";
  }
  return "";
}


// "B=128 N=4096" (the size the benchmark timed), "-" when the kernel was not timed.
std::string benchmark_size_text(const BenchmarkRecord& b) {
  if (!b.measured) return "-";
  return b.dims.empty() ? "size not recorded" : b.dims;
}

// "short calls: the speedup is mostly fixed per-call cost (under 0.1 ms)", or "".
std::string short_benchmark_warning(const BenchmarkRecord& b) {
  if (!short_benchmark_calls(b)) return "";
  return "short calls: the speedup is largely fixed per-call cost (under " +
         plain_number(defaults::kShortBenchmarkCallMilliseconds) + " ms)";
}

// One kernel's mark on the scatter plot: a circle, or a cross for a failed kernel; its title
// names it and says what the point means.
std::string plot_marker(double x, double y, const std::string& color, bool filled, bool failed,
                        const std::string& title) {
  std::ostringstream out;
  if (failed) {
    out << "<path data-verdict=\"FAIL\" d=\"M" << x - 5 << " " << y - 5 << "L" << x + 5 << " "
        << y + 5 << "M" << x - 5 << " " << y + 5 << "L" << x + 5 << " " << y - 5
        << "\" stroke=\"#c33\" stroke-width=\"2.5\" fill=\"none\"><title>" << html_escape(title)
        << "</title></path>\n";
  } else {
    out << "<circle data-verdict=\"pass\" cx=\"" << x << "\" cy=\"" << y << "\" r=\"5\" "
        << (filled ? "fill=\"" + color + "\"" : "fill=\"none\" stroke=\"" + color + "\"")
        << "><title>" << html_escape(title) << "</title></circle>\n";
  }
  return out.str();
}

// The scatter plot: speedup against the strongest baseline (y, log 1/16 to 16) against memory
// efficiency (x, the same scale; the baselines at (1, 1)) where any plotted kernel's memory was
// measured. Where none was (the CPU), x is the kernel's median call time instead (log, whole
// decades), so that the points spread and short, overhead-bound calls stand apart. Failed
// kernels are crosses: at their point when timed, else in a strip under the plot.
std::string scatter_plot_svg(const RunReport& report) {
  struct Point {
    const KernelReport* kernel;
    double memory;  // 0: not measured
  };
  std::vector<Point> points;
  std::vector<const KernelReport*> untimed_failures;
  for (const KernelReport& kernel : report.kernels) {
    const BenchmarkRecord& b = kernel.benchmark;
    if (b.measured && !b.strongest_baseline.empty()) {
      const BaselineResult* strongest = find_baseline(b, b.strongest_baseline);
      points.push_back({&kernel, strongest ? std::max(0.0, strongest->memory_efficiency) : 0});
    } else if (kernel.verdict() == "FAIL") {
      untimed_failures.push_back(&kernel);
    }
  }
  const bool memory_axis =
      std::any_of(points.begin(), points.end(), [](const Point& p) { return p.memory > 0; });
  // The x axis's decades (log10) when it shows call times: every median and the short-call
  // threshold, with room on both sides, so that no point sits on the border.
  double low = -2, high = 1;
  if (!memory_axis && !points.empty()) {
    low = high = std::log10(defaults::kShortBenchmarkCallMilliseconds);
    for (const Point& p : points) {
      const double decade = std::log10(std::max(p.kernel->benchmark.time.median, 1e-9));
      low = std::min(low, decade);
      high = std::max(high, decade);
    }
    low = std::floor(low - 0.2);
    high = std::ceil(high + 0.2);
  }
  const double size = 420, margin = 50, extent = 4;  // log2 extent: 1/16 .. 16
  const double strip = untimed_failures.empty() ? 0 : 44;  // [px] the untimed failures' strip
  const double width = size + 2 * margin, height = size + 2 * margin + strip;
  const auto y_of = [&](double speedup) {
    const double fraction = (std::clamp(std::log2(speedup), -extent, extent) + extent) / (2 * extent);
    return margin + (1 - fraction) * size;
  };
  const auto x_of = [&](double value) {
    const double fraction =
        memory_axis ? (std::clamp(std::log2(value), -extent, extent) + extent) / (2 * extent)
                    : (std::clamp(std::log10(value), low, high) - low) / (high - low);
    return margin + fraction * size;
  };
  std::ostringstream out;
  out << "<h2>" << (memory_axis ? "Speedup against memory efficiency" : "Speedup against call time")
      << "</h2>\n";
  if (!memory_axis) {
    out << "<p>Memory was not measured on this device, so the x axis is each kernel's median "
           "time per call (log scale); points left of the dashed line are calls under "
        << plain_number(defaults::kShortBenchmarkCallMilliseconds)
        << " ms, whose speedups are largely fixed per-call cost.</p>\n";
  }
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\">\n"
      << "<rect x=\"" << margin << "\" y=\"" << margin << "\" width=\"" << size << "\" height=\""
      << size << "\" fill=\"none\" stroke=\"#999\"/>\n"
      << "<line x1=\"" << margin << "\" y1=\"" << y_of(1) << "\" x2=\"" << margin + size
      << "\" y2=\"" << y_of(1) << "\" stroke=\"#ccc\"/>\n";
  if (memory_axis) {
    out << "<line x1=\"" << x_of(1) << "\" y1=\"" << margin << "\" x2=\"" << x_of(1)
        << "\" y2=\"" << margin + size << "\" stroke=\"#ccc\"/>\n"
        << "<circle cx=\"" << x_of(1) << "\" cy=\"" << y_of(1)
        << "\" r=\"6\" fill=\"#888\"><title>baselines</title></circle>\n";
  } else {
    const double short_line = std::log10(defaults::kShortBenchmarkCallMilliseconds);
    if (short_line > low && short_line < high) {
      const double x = x_of(defaults::kShortBenchmarkCallMilliseconds);
      out << "<line x1=\"" << x << "\" y1=\"" << margin << "\" x2=\"" << x << "\" y2=\""
          << margin + size << "\" stroke=\"#a60\" stroke-dasharray=\"4 3\"/>\n";
    }
  }
  out << "<text x=\"" << margin + size / 2 << "\" y=\"" << size + 2 * margin - 18
      << "\" text-anchor=\"middle\" font-size=\"12\">"
      << (memory_axis ? "memory efficiency vs strongest baseline (log, 1/16 to 16)"
                      : "kernel median per call, ms (log); memory not measured")
      << "</text>\n"
      << "<text x=\"14\" y=\"" << margin + size / 2 << "\" font-size=\"12\" transform=\"rotate(-90 14 "
      << margin + size / 2 << ")\" text-anchor=\"middle\">speedup vs strongest baseline (log)</text>\n";
  for (double tick : {1.0 / 16, 0.25, 1.0, 4.0, 16.0}) {
    const std::string label = tick < 1 ? "1/" + fixed(1 / tick, 0) : fixed(tick, 0);
    out << "<text x=\"" << margin - 4 << "\" y=\"" << y_of(tick) + 3
        << "\" text-anchor=\"end\" font-size=\"10\">" << label << "</text>\n";
    if (memory_axis) {
      out << "<text x=\"" << x_of(tick) << "\" y=\"" << margin + size + 14
          << "\" text-anchor=\"middle\" font-size=\"10\">" << label << "</text>\n";
    }
  }
  if (!memory_axis) {
    for (double decade = low; decade <= high + 0.5; ++decade) {
      out << "<text x=\"" << x_of(std::pow(10.0, decade)) << "\" y=\"" << margin + size + 14
          << "\" text-anchor=\"middle\" font-size=\"10\">" << plain_number(std::pow(10.0, decade))
          << "</text>\n";
    }
  }
  // The legend sits above the plot, in two lines, so that it neither runs past the picture's
  // edge nor hides points on the top border.
  out << "<text x=\"" << margin << "\" y=\"" << margin - 30
      << "\" font-size=\"11\"><tspan fill=\"#2a7\">&#9679; CUDA</tspan> <tspan fill=\"#37c\">&#9679; "
         "CPU</tspan> <tspan fill=\"#c33\">&#10005; failed</tspan>"
      << (memory_axis ? " &#9675; memory not measured (plotted at 1)" : "") << "</text>\n"
      << "<text x=\"" << margin << "\" y=\"" << margin - 16 << "\" font-size=\"11\">"
      << (memory_axis ? "grey: baselines; " : "") << "values beyond the axes sit on the border</text>\n";
  for (const Point& p : points) {
    const KernelReport& kernel = *p.kernel;
    const BenchmarkRecord& b = kernel.benchmark;
    const double x = memory_axis ? (p.memory > 0 ? p.memory : 1) : b.time.median;
    const std::string color = kernel.device == "cuda" ? "#2a7" : "#37c";
    const std::string title =
        kernel.full_id() + (kernel.verdict() == "FAIL" ? " (FAIL)" : "") + ": " +
        fixed(b.speedup_vs_strongest.ratio, 2) + "x at " + benchmark_size_text(b) + ", " +
        (memory_axis ? (p.memory > 0 ? "memory " + fixed(p.memory, 2) + "x" : "memory not measured")
                     : fixed(b.time.median, 4) + " ms a call");
    out << plot_marker(x_of(x), y_of(b.speedup_vs_strongest.ratio), color,
                       !memory_axis || p.memory > 0, kernel.verdict() == "FAIL", title);
  }
  if (!untimed_failures.empty()) {
    const double y = size + 2 * margin + 18;
    out << "<text x=\"" << margin << "\" y=\"" << y - 12
        << "\" font-size=\"11\">failed, not timed (no speedup to plot):</text>\n";
    const double step = size / static_cast<double>(untimed_failures.size() + 1);
    for (std::size_t i = 0; i < untimed_failures.size(); ++i) {
      const KernelReport& kernel = *untimed_failures[i];
      out << plot_marker(margin + step * static_cast<double>(i + 1), y + 8, "#c33", true, true,
                         kernel.full_id() + " (FAIL): not timed");
    }
  }
  out << "</svg>\n";
  return out.str();
}
}  // namespace

std::string KernelReport::verdict() const {
  if (!cases.problems.empty() || cases.count("failed") > 0 || cases.count("crashed") > 0 ||
      cases.cases.empty()) {
    return "FAIL";
  }
  // Wrong outputs of timed calls fail the kernel even when its time was refused.
  if ((benchmark.measured && benchmark.impossible) || benchmark.spot_check_failures > 0) {
    return "FAIL";
  }
  return cases.count("passed") == 0 ? "skipped" : "pass";
}

std::vector<DeviceAggregates> aggregate(const std::vector<KernelReport>& kernels) {
  std::vector<DeviceAggregates> result;
  std::set<std::string> devices;
  for (const KernelReport& kernel : kernels) devices.insert(kernel.device);
  for (const std::string& device : devices) {
    DeviceAggregates aggregates;
    aggregates.device = device;
    std::map<std::string, std::vector<double>> speedups;
    std::vector<double> memory;
    std::map<std::string, int> fast;
    for (const KernelReport& kernel : kernels) {
      if (kernel.device != device) continue;
      if (kernel.task_excluded()) {
        ++aggregates.excluded_left_out;
        continue;
      }
      if (kernel.verdict() == "skipped") continue;
      ++aggregates.kernels;
      if (kernel.task_precision_blind()) ++aggregates.precision_blind;
      if (kernel.correct()) ++aggregates.correct;
      if (kernel.benchmark.impossible) ++aggregates.impossible;
      if (!scored(kernel)) continue;
      const double speedup = kernel.benchmark.speedup_vs_strongest.ratio;
      for (const auto& [label, p] : std::vector<std::pair<std::string, double>>{
               {"0", 0.0}, {"1", 1.0}, {"1.5", 1.5}, {"2", 2.0}}) {
        if (speedup > p) ++fast[label];
      }
      if (speedup > 0) speedups["strongest"].push_back(speedup);
      for (const BaselineResult& baseline : kernel.benchmark.baselines) {
        if (baseline.available && baseline.speedup.ratio > 0) {
          speedups[baseline.name].push_back(baseline.speedup.ratio);
        }
      }
      const BaselineResult* strongest =
          find_baseline(kernel.benchmark, kernel.benchmark.strongest_baseline);
      if (strongest && strongest->memory_efficiency > 0) {
        memory.push_back(strongest->memory_efficiency);
      }
    }
    if (aggregates.kernels > 0) {
      aggregates.correctness_rate = static_cast<double>(aggregates.correct) / aggregates.kernels;
      for (const char* label : {"0", "1", "1.5", "2"}) {
        aggregates.fast_p[label] = static_cast<double>(fast[label]) / aggregates.kernels;
      }
    }
    for (const auto& [name, values] : speedups) {
      aggregates.geomean_speedup[name] = geometric_mean(values);
    }
    aggregates.geomean_memory_efficiency = geometric_mean(memory);
    result.push_back(aggregates);
  }
  return result;
}

std::string results_json(const RunReport& report) {
  Json top = Json::object();
  top["schema"] = kResultsSchema;
  top["started_utc"] = report.started_utc;
  top["seed"] = report.seed;
  top["hidden_inputs"] = report.hidden_inputs;
  top["isolation"] = report.isolation;
  top["finished"] = report.finished;
  top["kernel_filter"] = report.kernel_filter;
  top["shard"] = nullptr;
  if (report.shard_count > 0) {
    Json& shard = top["shard"] = Json::object();
    shard["index"] = report.shard_index;
    shard["count"] = report.shard_count;
    shard["selected_kernels"] = report.selected_kernels;
  }
  top["merged_shards"] = report.merged_shards;
  Json& devices = top["devices"] = Json::object();
  for (const auto& [device, peaks] : report.peaks) {
    Json& entry = devices[device] = Json::object();
    entry["name"] = peaks.device_name;
    entry["copy_bytes_per_second"] = as_recorded(peaks.copy_bytes_per_second);
    entry["fp32_flops_per_second"] = as_recorded(peaks.fp32_flops_per_second);
    entry["tf32_flops_per_second"] = as_recorded(peaks.tf32_flops_per_second);
    entry["bf16_flops_per_second"] = as_recorded(peaks.bf16_flops_per_second);
    entry["harness_overhead_ms"] = as_recorded(peaks.harness_overhead_ms);
  }
  Json& kernels = top["kernels"] = Json::array();
  for (const KernelReport& kernel : report.kernels) {
    const BenchmarkRecord& bench = kernel.benchmark;
    Json entry = Json::object();
    entry["task"] = kernel.task;
    entry["kernel"] = kernel.kernel;
    entry["device"] = kernel.device;
    entry["precision"] = kernel.precision;
    entry["accumulation"] = kernel.accumulation;
    entry["verdict"] = kernel.verdict();
    entry["task_severity"] = kernel.task_severity;
    entry["precision_claim"] = kernel.precision_claim();
    entry["task_reasons"] = kernel.task_reasons;
    entry["seconds"] = as_recorded(kernel.seconds);
    Json& waived = entry["waived_gates"] = Json::object();
    for (const auto& [gate, reason] : kernel.waived_gates) waived[gate] = reason;
    entry["allowed_operators"] = kernel.allowed_operators;
    entry["supports"] = kernel.supported_dims;
    entry["alignment_bytes"] = kernel.alignment_bytes;
    Json& phases = entry["time_breakdown_s"] = Json::object();
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      phases[to_string(static_cast<Phase>(i))] = as_recorded(kernel.phases.milliseconds[i] / 1000);
    }
    Json& cases = entry["cases"] = Json::array();
    // The case record's one writer is supervision/'s (its header leaves the JSON library out):
    // its text, parsed back, with the seventeen digits it keeps of milliseconds and scale.
    for (const CaseRecord& record : kernel.cases.cases) {
      cases.push_back(Json::parse(case_record_json(record)));
    }
    entry["problems"] = kernel.cases.problems;
    // The child judges its cases ran in, and how many of them were started ahead of their work.
    Json& processes = entry["child_processes"] = Json::object();
    processes["started"] = kernel.cases.processes;
    processes["started_ahead"] = kernel.cases.processes_started_ahead;
    Json& benchmark = entry["benchmark"] = Json::object();
    benchmark["measured"] = bench.measured;
    benchmark["problem"] = bench.problem;
    benchmark["dims"] = bench.dims;
    benchmark["time"] = summary_json(bench.time);
    benchmark["stop_reason"] = bench.stop_reason;
    benchmark["peak_memory_bytes"] = as_recorded(bench.peak_memory_bytes);
    benchmark["floor_ms"] = as_recorded(bench.floor_ms);
    benchmark["impossible"] = bench.impossible;
    Json& roofline = benchmark["roofline"] = Json::object();
    roofline["achieved_bytes_per_second"] = as_recorded(bench.achieved_bytes_per_second);
    roofline["achieved_flops_per_second"] = as_recorded(bench.achieved_flops_per_second);
    roofline["bandwidth_fraction"] = as_recorded(bench.bandwidth_fraction);
    roofline["flops_fraction"] = as_recorded(bench.flops_fraction);
    Json& spot_checks = benchmark["spot_checks"] = Json::object();
    spot_checks["checked"] = bench.spot_checks;
    spot_checks["failed"] = bench.spot_check_failures;
    spot_checks["message"] = bench.spot_check_message;
    Json& baselines = benchmark["baselines"] = Json::array();
    for (const BaselineResult& baseline : bench.baselines) {
      Json row = Json::object();
      row["name"] = baseline.name;
      row["available"] = baseline.available;
      row["absent_reason"] = baseline.absent_reason;
      row["measures"] = baseline.measures;
      row["time"] = summary_json(baseline.time);
      row["peak_memory_bytes"] = as_recorded(baseline.peak_memory_bytes);
      row["speedup"] = interval_json(baseline.speedup);
      row["memory_efficiency"] = as_recorded(baseline.memory_efficiency);
      baselines.push_back(std::move(row));
    }
    benchmark["strongest_baseline"] = bench.strongest_baseline;
    benchmark["speedup_vs_strongest"] = interval_json(bench.speedup_vs_strongest);
    benchmark["faster_than_strongest"] =
        bench.faster_than_strongest() && as_recorded(bench.speedup_vs_strongest.low) > 1;
    kernels.push_back(std::move(entry));
  }
  Json& summary = top["summary"] = Json::array();
  for (const DeviceAggregates& agg : aggregate(report.kernels)) {
    Json entry = Json::object();
    entry["device"] = agg.device;
    entry["kernels"] = agg.kernels;
    entry["correct"] = agg.correct;
    entry["correctness_rate"] = as_recorded(agg.correctness_rate);
    entry["impossible"] = agg.impossible;
    entry["excluded_left_out"] = agg.excluded_left_out;
    entry["precision_blind"] = agg.precision_blind;
    Json& fast_p = entry["fast_p"] = Json::object();
    for (const auto& [p, share] : agg.fast_p) fast_p[p] = as_recorded(share);
    Json& geomean = entry["geomean_speedup"] = Json::object();
    for (const auto& [name, value] : agg.geomean_speedup) geomean[name] = as_recorded(value);
    entry["geomean_memory_efficiency"] = as_recorded(agg.geomean_memory_efficiency);
    summary.push_back(std::move(entry));
  }
  return json_file_text(top);
}

std::string time_breakdown_text(const RunReport& report) {
  PhaseTimes phases;
  double wall_seconds = 0;
  for (const KernelReport& kernel : report.kernels) {
    phases += kernel.phases;
    wall_seconds += kernel.seconds;
  }
  const auto seconds = [&](Phase phase) { return fixed(phases[phase] / 1000, 1) + " s"; };
  std::ostringstream text;
  text << "Where the time went: " << fixed(wall_seconds, 1) << " s for " << report.kernels.size()
       << (report.kernels.size() == 1 ? " kernel" : " kernels") << ": drawing inputs "
       << seconds(Phase::drawing) << ", references " << seconds(Phase::references)
       << ", kernel calls " << seconds(Phase::kernel_calls) << ", buffers shared with workers "
       << seconds(Phase::buffer_sharing) << ", comparison " << seconds(Phase::comparison)
       << ", benchmark timing " << seconds(Phase::timing) << ", baselines "
       << seconds(Phase::baselines)
       << ", waiting for the GPU (other judges timing on it, or its cases before a timing) "
       << seconds(Phase::device_wait) << ", the rest "
       << fixed(std::max(0.0, wall_seconds - phases.total() / 1000), 1)
       << " s (starting processes and workers, loading LibTorch and CUDA, scheduling).";
  return text.str();
}

std::string report_markdown(const RunReport& report) {
  std::ostringstream out;
  out << "# RobustKernelTest report\n\nStarted " << report.started_utc << "; seed " << report.seed
      << "; hidden inputs: " << report.hidden_inputs << shard_text(report)
      << (report.finished ? "" : "; UNFINISHED")
      << ".\n\nKernels ran " << report.isolation << ".\n\n" << time_breakdown_text(report) << "\n\n";
  for (const auto& [device, peaks] : report.peaks) out << "- " << peaks_text(device, peaks) << "\n";
  out << "\n## Summary\n\n| device | kernels | correct | fast_0 | fast_1 | fast_1.5 | fast_2 | "
         "geomean vs eager_fp32 | vs eager_tf32 | vs strongest | memory efficiency |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const DeviceAggregates& agg : aggregate(report.kernels)) {
    out << "| " << agg.device << " | " << agg.kernels << " | " << agg.correct << " | "
        << fast_share(agg, "0") << " | " << fast_share(agg, "1") << " | "
        << fast_share(agg, "1.5") << " | " << fast_share(agg, "2") << " | "
        << geomean_speedup_text(agg, "eager_fp32") << " | "
        << geomean_speedup_text(agg, "eager_tf32") << " | "
        << geomean_speedup_text(agg, "strongest") << " | " << memory_efficiency_text(agg)
        << " |\n";
  }
  for (const DeviceAggregates& agg : aggregate(report.kernels)) {
    if (!left_out_text(agg).empty()) out << "\n" << left_out_text(agg) << "\n";
  }
  out << "\n## Kernels\n\n| kernel | device | verdict | cases passed/failed/skipped | median "
         "ms | noise | speedup vs strongest [95% CI] | benchmark size | floor ms | bandwidth | flops |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const KernelReport& kernel : report.kernels) {
    const BenchmarkRecord& b = kernel.benchmark;
    out << "| " << kernel.full_id()
        << (kernel.accumulation == "fp32" ? "" : " (accumulates in " + kernel.accumulation + ")")
        << (kernel.task_excluded()          ? " (task excluded)"
            : kernel.task_precision_blind() ? " (task precision-blind)"
                                            : "")
        << " | "
        << kernel.device << " | " << kernel.verdict() << (b.impossible ? " (impossible)" : "")
        << (kernel.verdict() == "pass" && !b.measured ? " (not timed)" : "")
        << " | " << case_counts(kernel) << " | "
        << (b.measured ? fixed(b.time.median, 4) : "-") << " | "
        << (b.measured ? fixed(100 * b.time.relative_noise, 1) + "%" : "-") << " | "
        << speedup_vs_strongest_text(b) << " | " << benchmark_size_text(b)
        << (short_benchmark_calls(b) ? " (short calls)" : "") << " | "
        << (b.measured ? fixed(b.floor_ms, 4) : "-") << " | "
        << (b.measured ? fixed(100 * b.bandwidth_fraction, 0) + "%" : "-") << " | "
        << (b.measured ? fixed(100 * b.flops_fraction, 0) + "%" : "-") << " |\n";
  }
  const std::vector<ReportNote> notes = report_notes(report);
  if (!notes.empty()) out << "\n## Notes\n\n";
  for (const ReportNote& note : notes) out << note_markdown(note);
  return out.str();
}

std::string report_html(const RunReport& report) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<title>RobustKernelTest report</title><style>"
         "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
         "margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
         "th{background:#f4f4f4}td:first-child{text-align:left}.FAIL{color:#b00;font-weight:bold}"
         ".pass{color:#070}.borrowed{color:#666}.message{white-space:pre-wrap}"
         "li.failure{margin-bottom:.5em}code{background:#f4f4f4;overflow-wrap:anywhere}"
         // A wide table scrolls inside its own frame; the page itself never runs off the
         // window's right edge (tests/report_check/ measures it at 1400 and 800 px).
         ".table-frame{overflow-x:auto;max-width:100%}.short{color:#a60}"
         "svg{max-width:100%;height:auto}</style></head><body>\n"
      << "<h1>RobustKernelTest report</h1>\n<p>Started " << html_escape(report.started_utc)
      << "; seed " << report.seed << "; hidden inputs: " << html_escape(report.hidden_inputs)
      << shard_text(report) << (report.finished ? "" : "; <b>unfinished</b>") << ".</p>\n<p>Kernels ran "
      << html_escape(report.isolation) << ".</p>\n<p>" << html_escape(time_breakdown_text(report))
      << "</p>\n";
  if (!report.peaks.empty()) {
    out << "<ul>\n";
    for (const auto& [device, peaks] : report.peaks) {
      out << "<li>" << html_escape(peaks_text(device, peaks)) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "<h2>Summary</h2>\n<div class=\"table-frame\"><table><tr><th>device</th><th>kernels</th><th>correct</th>"
         "<th>fast_0</th><th>fast_1</th><th>fast_1.5</th><th>fast_2</th><th>geomean speedup vs "
         "eager_fp32</th><th>vs eager_tf32</th><th>vs strongest</th><th>geomean memory "
         "efficiency</th></tr>\n";
  for (const DeviceAggregates& agg : aggregate(report.kernels)) {
    out << "<tr><td>" << html_escape(agg.device) << "</td><td>" << agg.kernels << "</td><td>"
        << agg.correct << "</td><td>" << fast_share(agg, "0") << "</td><td>"
        << fast_share(agg, "1") << "</td><td>" << fast_share(agg, "1.5") << "</td><td>"
        << fast_share(agg, "2") << "</td><td>" << geomean_speedup_text(agg, "eager_fp32")
        << "</td><td>" << geomean_speedup_text(agg, "eager_tf32") << "</td><td>"
        << geomean_speedup_text(agg, "strongest") << "</td><td>" << memory_efficiency_text(agg)
        << "</td></tr>\n";
  }
  out << "</table></div>\n";
  for (const DeviceAggregates& agg : aggregate(report.kernels)) {
    if (!left_out_text(agg).empty()) out << "<p>" << html_escape(left_out_text(agg)) << "</p>\n";
  }

  out << scatter_plot_svg(report);


  std::set<std::string> tasks;
  for (const KernelReport& kernel : report.kernels) tasks.insert(kernel.task);
  for (const std::string& task : tasks) {
    std::string mark;
    for (const KernelReport& kernel : report.kernels) {
      if (kernel.task != task) continue;
      if (kernel.task_excluded()) mark = " (excluded from the summary by the task filter)";
      if (kernel.task_precision_blind()) {
        mark = " (precision-blind: precision claims on it are unverifiable)";
      }
    }
    out << "<h2>" << html_escape(task + mark) << "</h2>\n<div class=\"table-frame\"><table><tr><th>kernel</th><th>device</th>"
           "<th>verdict</th><th>cases passed/failed/skipped</th><th>median ms</th><th>IQR ms</th>"
           "<th>noise</th><th>samples</th><th>benchmark size</th>";
    for (const char* name : {"eager_fp32", "eager_tf32", "compiled"}) {
      out << "<th>" << name << " ms</th><th>speedup [95% CI]</th>";
    }
    out << "<th>speedup vs strongest [95% CI]</th><th>floor ms</th><th>bandwidth</th>"
           "<th>flops</th><th>peak memory MB</th></tr>\n";
    for (const KernelReport& kernel : report.kernels) {
      if (kernel.task != task) continue;
      const BenchmarkRecord& b = kernel.benchmark;
      out << "<tr><td>" << html_escape(kernel.kernel)
          << (kernel.accumulation == "fp32"
                  ? ""
                  : "<br><small>accumulates in " + html_escape(kernel.accumulation) + "</small>")
          << (kernel.supported_dims.empty()
                  ? ""
                  : "<br><small>supports only " + html_escape(joined(kernel.supported_dims)) +
                        "</small>")
          << (kernel.alignment_bytes > 0
                  ? "<br><small>requires " + std::to_string(kernel.alignment_bytes) + "-byte aligned buffers</small>"
                  : "")
          << "</td><td>" << kernel.device
          << "</td><td class=\"" << kernel.verdict() << "\">" << kernel.verdict()
          << (b.impossible ? " (impossible)" : "") << "</td><td>" << case_counts(kernel)
          << "</td><td>" << (b.measured ? fixed(b.time.median, 4) : "-") << "</td><td>"
          << (b.measured ? fixed(b.time.iqr(), 4) : "-") << "</td><td>"
          << (b.measured ? fixed(100 * b.time.relative_noise, 1) + "%" : "-") << "</td><td>"
          << (b.measured ? std::to_string(b.time.count) : "-") << "</td><td>"
          << html_escape(benchmark_size_text(b))
          << (short_benchmark_calls(b) ? "<br><small class=\"short\">" +
                                       html_escape(short_benchmark_warning(b)) + "</small>"
                                 : "")
          << "</td>";
      for (const char* name : {"eager_fp32", "eager_tf32", "compiled"}) {
        const BaselineResult* baseline = find_baseline(b, name);
        if (baseline && baseline->available) {
          out << "<td>" << fixed(baseline->time.median, 4) << "</td><td>"
              << fixed(baseline->speedup.ratio, 2) << "x [" << fixed(baseline->speedup.low, 2)
              << ", " << fixed(baseline->speedup.high, 2) << "]</td>";
          continue;
        }
        // Why this kernel's benchmark has no such measurement: its own reason, or the reason
        // the kernel was not timed at all (a failing kernel is not).
        const std::string why = baseline ? baseline->absent_reason
                                : !b.measured && !b.problem.empty()
                                    ? "this kernel was not timed: " + b.problem
                                    : "not measured for this kernel";
        if (const KernelReport* lender = baseline_lender(report, kernel, name)) {
          // The task's baseline was timed beside another kernel in this run: its median is
          // shown as that kernel's, and no speedup, which needs a measurement beside this one.
          out << "<td class=\"borrowed\" title=\"" << html_escape(why) << "\">"
              << fixed(find_baseline(lender->benchmark, name)->time.median, 4)
              << "<br><small>from " << html_escape(lender->kernel)
              << "'s benchmark</small></td><td class=\"borrowed\">-</td>";
        } else {
          out << "<td colspan=\"2\" title=\"" << html_escape(why) << "\">"
              << (b.measured ? "absent" : "not timed") << "</td>";
        }
      }
      out << "<td>" << html_escape(speedup_vs_strongest_text(b))
          << (b.measured ? std::string("<br><small") + (short_benchmark_calls(b) ? " class=\"short\"" : "") +
                               ">at " + html_escape(benchmark_size_text(b)) +
                               (short_benchmark_calls(b) ? ", short calls" : "") + "</small>"
                         : "")
          << "</td><td>"
          << (b.measured ? fixed(b.floor_ms, 4) : "-") << "</td><td>"
          << (b.measured ? fixed(100 * b.bandwidth_fraction, 0) + "%" : "-") << "</td><td>"
          << (b.measured ? fixed(100 * b.flops_fraction, 0) + "%" : "-") << "</td><td>"
          << (b.peak_memory_bytes >= 0 ? fixed(b.peak_memory_bytes / 1e6, 1) : "-")
          << "</td></tr>\n";
    }
    out << "</table></div>\n";
  }
  const std::vector<ReportNote> notes = report_notes(report);
  if (!notes.empty()) {
    out << "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
    for (const ReportNote& note : notes) out << note_html(note);
    out << "</ul>\n";
  }
  out << "</body></html>\n";
  return out.str();
}

}  // namespace rkt
