#include "framework/runs/baseline_table.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "framework/base/number_text.h"
#include "framework/base/file_access.h"
#include "framework/base/utc_time.h"
#include "framework/base/json_fields.h"
#include "framework/base/option_parsing.h"
#include "framework/base/record_fields.h"
#include "framework/base/recorded_number.h"
#include "framework/baselines/backward_baseline.h"
#include "framework/benchmarks/benchmark_case.h"
#include "framework/cases/task_filter.h"
#include "framework/registry/task_selection.h"
#include "framework/dims/dim_resolution.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/runs/ratio_interval_field.h"
#include "framework/runtime/device_support.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// ---- Records: one file per task, "key=value" lines ----------------------------------------

using Fields = RecordFields;

double number_field(const Fields& fields, const std::string& key) {
  const auto found = fields.find(key);
  return found == fields.end() || found->second.empty() ? 0 : std::stod(found->second);
}

void put_interval(Fields& fields, const std::string& prefix, const RatioInterval& interval) {
  fields[prefix + "ratio"] = record_number(interval.ratio);
  fields[prefix + "low"] = record_number(interval.low);
  fields[prefix + "high"] = record_number(interval.high);
}

RatioInterval get_interval(const Fields& fields, const std::string& prefix) {
  return {number_field(fields, prefix + "ratio"), number_field(fields, prefix + "low"),
          number_field(fields, prefix + "high")};
}

// ---- Text helpers ---------------------------------------------------------------------------

// A time or a speedup: "-" where none was measured (recorded as 0).
std::string fixed(double value, int digits) { return value <= 0 ? "-" : fixed_digits(value, digits); }

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

using Json = nlohmann::ordered_json;

// Numbers go through as_recorded (six significant digits; non-finite ones are written as null).
Json interval_json(const RatioInterval& interval) {
  Json entry = Json::object();
  entry["ratio"] = as_recorded(interval.ratio);
  entry["low"] = as_recorded(interval.low);
  entry["high"] = as_recorded(interval.high);
  return entry;
}

// "1.234 [1.200, 1.250]" (ms), or "absent".
std::string median_text(const BaselineTiming* timing) {
  if (timing == nullptr || !timing->available) return "absent";
  return fixed(timing->time.median, 4) + " [" + fixed(timing->median_low, 4) + ", " +
         fixed(timing->median_high, 4) + "]";
}

std::string ratio_text(const RatioInterval& interval) {
  if (interval.ratio <= 0) return "-";
  return fixed(interval.ratio, 2) + "x [" + fixed(interval.low, 2) + ", " +
         fixed(interval.high, 2) + "]";
}

std::string memory_text(const BaselineTiming* timing) {
  if (timing == nullptr || !timing->available || timing->peak_memory_bytes < 0) return "-";
  return fixed(timing->peak_memory_bytes / 1e6, 1);
}

// Geometric means of the speedups per task source (core, rkb, kb_l1, kb_l2).
struct SourceSummary {
  int tasks = 0, measured = 0, compiled = 0;
  double tf32_speedup = 0, compiled_speedup = 0;  // geometric means; 0 when none
};

std::map<std::string, SourceSummary> summarize_by_source(const std::vector<BaselineRow>& rows) {
  std::map<std::string, std::vector<double>> tf32, compiled;
  std::map<std::string, SourceSummary> summaries;
  for (const BaselineRow& row : rows) {
    const std::string source = task_source(row.task);
    SourceSummary& summary = summaries[source];
    ++summary.tasks;
    const BaselineTiming* fp32 = row.find("eager_fp32");
    if (fp32 == nullptr || !fp32->available) continue;
    ++summary.measured;
    if (row.tf32_speedup.ratio > 0) tf32[source].push_back(row.tf32_speedup.ratio);
    if (row.compiled_speedup.ratio > 0) {
      compiled[source].push_back(row.compiled_speedup.ratio);
      ++summary.compiled;
    }
  }
  for (auto& [source, summary] : summaries) {
    summary.tf32_speedup = geometric_mean(tf32[source]);
    summary.compiled_speedup = geometric_mean(compiled[source]);
  }
  return summaries;
}

// ---- The job --------------------------------------------------------------------------------

std::string record_path(const std::string& directory, const std::string& task,
                        const std::string& device) {
  return directory + "/baselines/" + task + "." + device + ".record";
}

void write_tables(const std::string& directory, const BaselineTable& table) {
  write_file_atomically(directory + "/results.json", baseline_table_json(table));
  write_file_atomically(directory + "/report.md", baseline_table_markdown(table));
  write_file_atomically(directory + "/report.html", baseline_table_html(table));
}

}  // namespace

const BaselineTiming* BaselineRow::find(const std::string& name) const {
  for (const BaselineTiming& timing : baselines) {
    if (timing.name == name) return &timing;
  }
  return nullptr;
}

BaselineRow measure_baseline_row(const TaskSpec& declared_task, Device device,
                                 const DevicePeaks& peaks) {
  const auto start = std::chrono::steady_clock::now();
  const TaskSpec& task = declared_task.configured(0);
  BaselineRow row;
  row.task = declared_task.id();
  row.device = to_string(device);
  const Dims& dims = task.test_dims(device);
  row.dims = (task.config_name() == "default" ? "" : task.config_name() + ": ") + format_dims(dims);
  row.minimal_bytes = task.minimal_bytes(dims);
  row.flops = task.flop_count(dims);
  row.floor_ms = physical_floor_ms(peaks, Precision::fp32, row.minimal_bytes, row.flops);
  row.floor_tf32_ms = physical_floor_ms(peaks, Precision::tf32, row.minimal_bytes, row.flops);
  try {
    std::map<std::string, std::vector<double>> samples;
    for (BaselineMeasurement& measured : measure_baselines(declared_task, device)) {
      BaselineTiming timing;
      timing.name = measured.name;
      timing.available = measured.absent_reason.empty();
      timing.absent_reason = measured.absent_reason;
      if (timing.available) {
        timing.time = measured.timing.summary;
        std::tie(timing.median_low, timing.median_high) =
            median_confidence_interval(measured.timing.samples);
        timing.stop_reason = measured.timing.stop_reason;
        timing.peak_memory_bytes = measured.peak_memory_bytes;
        samples[timing.name] = std::move(measured.timing.samples);
      }
      row.baselines.push_back(timing);
    }
    const auto speedup_of = [&](const std::string& name) {
      if (samples.count("eager_fp32") == 0 || samples.count(name) == 0) return RatioInterval{};
      return bootstrap_median_ratio(samples["eager_fp32"], samples[name],
                                    defaults::kBootstrapResamples, defaults::kSpeedupConfidence,
                                    case_seed(row.task + "/baselines/" + name));
    };
    row.tf32_speedup = speedup_of("eager_tf32");
    row.compiled_speedup = speedup_of("compiled");
  } catch (const std::exception& error) {
    row.problem = "the baselines could not be measured: " + describe_exception(error);
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

std::string serialize(const BaselineRow& row) {
  Fields fields;
  fields["task"] = row.task;
  fields["device"] = row.device;
  fields["dims"] = row.dims;
  fields["minimal_bytes"] = record_number(row.minimal_bytes);
  fields["flops"] = record_number(row.flops);
  fields["floor_ms"] = record_number(row.floor_ms);
  fields["floor_tf32_ms"] = record_number(row.floor_tf32_ms);
  fields["problem"] = row.problem;
  fields["seconds"] = record_number(row.seconds);
  put_interval(fields, "tf32_speedup.", row.tf32_speedup);
  put_interval(fields, "compiled_speedup.", row.compiled_speedup);
  fields["baselines"] = std::to_string(row.baselines.size());
  for (std::size_t i = 0; i < row.baselines.size(); ++i) {
    const BaselineTiming& timing = row.baselines[i];
    const std::string prefix = "baseline." + std::to_string(i) + ".";
    fields[prefix + "name"] = timing.name;
    fields[prefix + "available"] = timing.available ? "1" : "0";
    fields[prefix + "absent_reason"] = timing.absent_reason;
    fields[prefix + "count"] = std::to_string(timing.time.count);
    fields[prefix + "median"] = record_number(timing.time.median);
    fields[prefix + "q1"] = record_number(timing.time.first_quartile);
    fields[prefix + "q3"] = record_number(timing.time.third_quartile);
    fields[prefix + "mean"] = record_number(timing.time.mean);
    fields[prefix + "stddev"] = record_number(timing.time.stddev);
    fields[prefix + "noise"] = record_number(timing.time.relative_noise);
    fields[prefix + "median_low"] = record_number(timing.median_low);
    fields[prefix + "median_high"] = record_number(timing.median_high);
    fields[prefix + "stop_reason"] = timing.stop_reason;
    fields[prefix + "peak_memory_bytes"] = record_number(timing.peak_memory_bytes);
  }
  return format_record_fields(fields);
}

BaselineRow deserialize_baseline_row(const std::string& text) {
  const Fields fields = parse_record_fields(text, "baseline record");
  if (record_text(fields, "task").empty()) {
    throw std::invalid_argument("baseline record without a task");
  }
  BaselineRow row;
  try {
    row.task = record_text(fields, "task");
    row.device = record_text(fields, "device");
    row.dims = record_text(fields, "dims");
    row.minimal_bytes = number_field(fields, "minimal_bytes");
    row.flops = number_field(fields, "flops");
    row.floor_ms = number_field(fields, "floor_ms");
    row.floor_tf32_ms = number_field(fields, "floor_tf32_ms");
    row.problem = record_text(fields, "problem");
    row.seconds = number_field(fields, "seconds");
    row.tf32_speedup = get_interval(fields, "tf32_speedup.");
    row.compiled_speedup = get_interval(fields, "compiled_speedup.");
    const int count = static_cast<int>(number_field(fields, "baselines"));
    for (int i = 0; i < count; ++i) {
      const std::string prefix = "baseline." + std::to_string(i) + ".";
      BaselineTiming timing;
      timing.name = record_text(fields, prefix + "name");
      timing.available = record_text(fields, prefix + "available") == "1";
      timing.absent_reason = record_text(fields, prefix + "absent_reason");
      timing.time.count = static_cast<int>(number_field(fields, prefix + "count"));
      timing.time.median = number_field(fields, prefix + "median");
      timing.time.first_quartile = number_field(fields, prefix + "q1");
      timing.time.third_quartile = number_field(fields, prefix + "q3");
      timing.time.mean = number_field(fields, prefix + "mean");
      timing.time.stddev = number_field(fields, prefix + "stddev");
      timing.time.relative_noise = number_field(fields, prefix + "noise");
      timing.median_low = number_field(fields, prefix + "median_low");
      timing.median_high = number_field(fields, prefix + "median_high");
      timing.stop_reason = record_text(fields, prefix + "stop_reason");
      timing.peak_memory_bytes = number_field(fields, prefix + "peak_memory_bytes");
      row.baselines.push_back(timing);
    }
  } catch (const std::logic_error& error) {  // std::stod on a malformed number
    throw std::invalid_argument("baseline record of '" + row.task + "' has a malformed number (" +
                                error.what() + ")");
  }
  return row;
}

std::string baseline_table_json(const BaselineTable& table) {
  Json top = Json::object();
  top["schema"] = "rkt-baselines/1";
  top["started_utc"] = table.started_utc;
  top["finished"] = table.finished;
  top["device"] = table.device;
  Json& peaks = top["peaks"] = Json::object();
  peaks["name"] = table.peaks.device_name;
  peaks["copy_bytes_per_second"] = as_recorded(table.peaks.copy_bytes_per_second);
  peaks["fp32_flops_per_second"] = as_recorded(table.peaks.fp32_flops_per_second);
  peaks["tf32_flops_per_second"] = as_recorded(table.peaks.tf32_flops_per_second);
  Json& tasks = top["tasks"] = Json::array();
  for (const BaselineRow& row : table.rows) {
    Json entry = Json::object();
    entry["task"] = row.task;
    entry["source"] = task_source(row.task);
    entry["device"] = row.device;
    entry["dims"] = row.dims;
    entry["problem"] = row.problem;
    entry["seconds"] = as_recorded(row.seconds);
    entry["minimal_bytes"] = as_recorded(row.minimal_bytes);
    entry["flops"] = as_recorded(row.flops);
    entry["floor_ms"] = as_recorded(row.floor_ms);
    entry["floor_tf32_ms"] = as_recorded(row.floor_tf32_ms);
    entry["tf32_speedup"] = interval_json(row.tf32_speedup);
    entry["compiled_speedup"] = interval_json(row.compiled_speedup);
    Json& baselines = entry["baselines"] = Json::array();
    for (const BaselineTiming& timing : row.baselines) {
      Json baseline = Json::object();
      baseline["name"] = timing.name;
      baseline["available"] = timing.available;
      baseline["absent_reason"] = timing.absent_reason;
      baseline["median_ms"] = as_recorded(timing.time.median);
      baseline["median_low_ms"] = as_recorded(timing.median_low);
      baseline["median_high_ms"] = as_recorded(timing.median_high);
      baseline["q1_ms"] = as_recorded(timing.time.first_quartile);
      baseline["q3_ms"] = as_recorded(timing.time.third_quartile);
      baseline["samples"] = timing.time.count;
      baseline["relative_noise"] = as_recorded(timing.time.relative_noise);
      baseline["stop_reason"] = timing.stop_reason;
      baseline["peak_memory_bytes"] = as_recorded(timing.peak_memory_bytes);
      baselines.push_back(std::move(baseline));
    }
    tasks.push_back(std::move(entry));
  }
  Json& summary = top["summary"] = Json::array();
  for (const auto& [source, counts] : summarize_by_source(table.rows)) {
    Json entry = Json::object();
    entry["source"] = source;
    entry["tasks"] = counts.tasks;
    entry["measured"] = counts.measured;
    entry["compiled_available"] = counts.compiled;
    entry["geomean_tf32_speedup"] = as_recorded(counts.tf32_speedup);
    entry["geomean_compiled_speedup"] = as_recorded(counts.compiled_speedup);
    summary.push_back(std::move(entry));
  }
  // Two-space indents; bytes that are not UTF-8 (a failure's message may carry any) written as
  // U+FFFD instead of refused.
  return top.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

BaselineTable read_baseline_table(const std::string& text) {
  const JsonDocument document(text);
  const JsonFields fields = document.root();
  if (fields.text("schema") != "rkt-baselines/1") {
    JsonFields::fail("schema", "is '" + fields.text("schema") + "', not 'rkt-baselines/1'");
  }
  BaselineTable table;
  table.started_utc = fields.text("started_utc");
  table.finished = fields.flag("finished");
  table.device = fields.text("device");
  const JsonFields peaks = fields.object("peaks");
  table.peaks.device_name = peaks.text("name");
  table.peaks.copy_bytes_per_second = peaks.number("copy_bytes_per_second");
  table.peaks.fp32_flops_per_second = peaks.number("fp32_flops_per_second");
  table.peaks.tf32_flops_per_second = peaks.number("tf32_flops_per_second");
  for (const JsonFields& entry : fields.array("tasks")) {
    BaselineRow row;
    row.task = entry.text("task");
    row.device = entry.text("device");
    row.dims = entry.text("dims");
    row.problem = entry.text("problem");
    row.seconds = entry.number("seconds");
    row.minimal_bytes = entry.number("minimal_bytes");
    row.flops = entry.number("flops");
    row.floor_ms = entry.number("floor_ms");
    row.floor_tf32_ms = entry.number("floor_tf32_ms");
    row.tf32_speedup = read_ratio_interval(entry.object("tf32_speedup"));
    row.compiled_speedup = read_ratio_interval(entry.object("compiled_speedup"));
    for (const JsonFields& baseline : entry.array("baselines")) {
      BaselineTiming timing;
      timing.name = baseline.text("name");
      timing.available = baseline.flag("available");
      timing.absent_reason = baseline.text("absent_reason");
      timing.time.median = baseline.number("median_ms");
      timing.median_low = baseline.number("median_low_ms");
      timing.median_high = baseline.number("median_high_ms");
      timing.time.first_quartile = baseline.number("q1_ms");
      timing.time.third_quartile = baseline.number("q3_ms");
      timing.time.count = baseline.integer("samples");
      timing.time.relative_noise = baseline.number("relative_noise");
      timing.stop_reason = baseline.text("stop_reason");
      timing.peak_memory_bytes = baseline.number("peak_memory_bytes");
      row.baselines.push_back(timing);
    }
    table.rows.push_back(row);
  }
  return table;
}

std::string baseline_table_markdown(const BaselineTable& table) {
  std::ostringstream out;
  out << "# RobustKernelTest baselines\n\nStarted " << table.started_utc << " on "
      << table.device << " (" << table.peaks.device_name << ")"
      << (table.finished ? "" : "; UNFINISHED") << ". Medians in ms with their ~95% intervals; "
      << "speedups are eager_fp32 over the baseline, with bootstrap intervals; peak memory in MB "
         "(one call, above resident inputs); floors in ms at the measured peaks.\n\n"
      << "## Summary\n\n| source | tasks | measured | geomean TF32 speedup | compiled available "
         "| geomean compiled speedup |\n|---|---|---|---|---|---|\n";
  for (const auto& [source, summary] : summarize_by_source(table.rows)) {
    out << "| " << source << " | " << summary.tasks << " | " << summary.measured << " | "
        << fixed(summary.tf32_speedup, 3) << " | " << summary.compiled << " | "
        << fixed(summary.compiled_speedup, 3) << " |\n";
  }
  out << "\n## Tasks\n\n| task | dims | eager_fp32 ms | eager_tf32 ms | compiled ms | TF32 "
         "speedup | compiled speedup | peak MB fp32/tf32/compiled | floor ms fp32/tf32 |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
  std::ostringstream notes;
  for (const BaselineRow& row : table.rows) {
    const BaselineTiming* fp32 = row.find("eager_fp32");
    const BaselineTiming* tf32 = row.find("eager_tf32");
    const BaselineTiming* compiled = row.find("compiled");
    out << "| " << row.task << " | " << row.dims << " | " << median_text(fp32) << " | "
        << median_text(tf32) << " | " << median_text(compiled) << " | "
        << ratio_text(row.tf32_speedup) << " | " << ratio_text(row.compiled_speedup) << " | "
        << memory_text(fp32) << "/" << memory_text(tf32) << "/" << memory_text(compiled) << " | "
        << fixed(row.floor_ms, 4) << "/" << fixed(row.floor_tf32_ms, 4) << " |\n";
    if (!row.problem.empty()) notes << "- **" << row.task << "**: " << row.problem << "\n";
    if (const TaskSpec* spec = find_task(row.task); spec && !spec->forward_task_id().empty()) {
      notes << "- " << row.task << ": the eager baselines time " << baseline_measures(*spec, "eager_fp32")
            << "; compiled times " << baseline_measures(*spec, "compiled") << "\n";
    }
    for (const BaselineTiming& timing : row.baselines) {
      if (!timing.available) {
        notes << "- " << row.task << ": " << timing.name << " absent: " << timing.absent_reason
              << "\n";
      }
    }
  }
  if (!notes.str().empty()) out << "\n## Notes\n\n" << notes.str();
  return out.str();
}

std::string baseline_table_html(const BaselineTable& table) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<title>RobustKernelTest baselines</title><style>"
         "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
         "margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
         "th{background:#f4f4f4}td:first-child{text-align:left}</style></head><body>\n"
      << "<h1>RobustKernelTest baselines</h1>\n<p>Started " << html_escape(table.started_utc)
      << " on " << html_escape(table.device) << " (" << html_escape(table.peaks.device_name)
      << ")" << (table.finished ? "" : "; <b>unfinished</b>")
      << ". Medians in ms with ~95% intervals; speedups are eager_fp32 over the baseline.</p>\n"
      << "<h2>Summary</h2>\n<table><tr><th>source</th><th>tasks</th><th>measured</th><th>geomean "
         "TF32 speedup</th><th>compiled available</th><th>geomean compiled speedup</th></tr>\n";
  for (const auto& [source, summary] : summarize_by_source(table.rows)) {
    out << "<tr><td>" << html_escape(source) << "</td><td>" << summary.tasks << "</td><td>"
        << summary.measured << "</td><td>" << fixed(summary.tf32_speedup, 3) << "</td><td>"
        << summary.compiled << "</td><td>" << fixed(summary.compiled_speedup, 3)
        << "</td></tr>\n";
  }
  out << "</table>\n<h2>Tasks</h2>\n<table><tr><th>task</th><th>dims</th><th>eager_fp32 ms</th>"
         "<th>eager_tf32 ms</th><th>compiled ms</th><th>TF32 speedup</th><th>compiled "
         "speedup</th><th>peak MB (fp32)</th><th>floor ms (fp32)</th><th>floor ms (tf32)</th>"
         "</tr>\n";
  for (const BaselineRow& row : table.rows) {
    out << "<tr><td>" << html_escape(row.task) << "</td><td>" << html_escape(row.dims) << "</td>";
    for (const char* name : {"eager_fp32", "eager_tf32", "compiled"}) {
      const BaselineTiming* timing = row.find(name);
      const std::string reason = !row.problem.empty() ? row.problem
                                 : timing            ? timing->absent_reason
                                                     : "not measured";
      out << "<td title=\"" << html_escape(reason) << "\">" << median_text(timing) << "</td>";
    }
    out << "<td>" << ratio_text(row.tf32_speedup) << "</td><td>"
        << ratio_text(row.compiled_speedup) << "</td><td>" << memory_text(row.find("eager_fp32"))
        << "</td><td>" << fixed(row.floor_ms, 4) << "</td><td>" << fixed(row.floor_tf32_ms, 4)
        << "</td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
  return out.str();
}

int run_baseline_job(const BaselineJobOptions& options) {
  const std::string directory = options.output_directory.empty()
                                    ? "runs/baselines-" + utc_time("%Y%m%dT%H%M%SZ")
                                    : options.output_directory;
  const std::string device = to_string(options.device);
  std::vector<const TaskSpec*> tasks = tasks_matching(options.task_filter);
  if (tasks.empty()) {
    return report_usage_error("no registered task matches '" + options.task_filter + "'");
  }
  // A shard's share: the shards of one table (one per GPU, each in its own folder) measure every
  // selected task once; their records copied into one folder make the whole table.
  const std::size_t selected = tasks.size();
  tasks = shard_share(tasks, options.shard);
  if (tasks.empty()) {
    std::cout << "rkt baselines: shard " << options.shard.label() << " of " << selected
              << " selected tasks holds none; nothing to measure\n";
    return 0;
  }
  if (!device_available(options.device)) {
    return report_usage_error("no " + device + " device: " +
                              device_unavailable_reason(options.device));
  }
  BaselineTable table;
  table.started_utc = utc_time("%Y-%m-%dT%H:%M:%SZ");
  table.device = device;
  std::map<std::string, BaselineRow> rows;  // task -> row, every record in the folder
  int from_earlier_table = 0;
  try {
    make_directories(directory + "/baselines");
    // Records of earlier runs into this folder (any task filter) are kept: they are the table.
    const std::string suffix = "." + device + ".record";
    for (const std::string& name : directory_entries(directory + "/baselines")) {
      if (name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      BaselineRow row =
          deserialize_baseline_row(read_whole_file(directory + "/baselines/" + name));
      rows[row.task] = std::move(row);
    }
    // A table without its records (copied or committed without baselines/): its rows are kept
    // too, written back as records, rather than overwritten by the rows measured now.
    const std::string earlier_table = directory + "/results.json";
    if (file_exists(earlier_table)) {
      BaselineTable earlier;
      try {
        earlier = read_baseline_table(read_whole_file(earlier_table));
      } catch (const std::invalid_argument& error) {
        throw std::runtime_error(earlier_table + " is not a baseline table this version can keep (" +
                                 error.what() + "); move it away or choose another --out");
      }
      if (earlier.device != device) {
        throw std::runtime_error(earlier_table + " holds a " + earlier.device + " table; a " +
                                 device + " run would replace it: choose another --out");
      }
      for (BaselineRow& row : earlier.rows) {
        if (rows.count(row.task) != 0) continue;
        write_file_atomically(record_path(directory, row.task, device), serialize(row));
        rows[row.task] = std::move(row);
        ++from_earlier_table;
      }
    }
  } catch (const std::exception& error) {
    std::cerr << "rkt baselines: " << error.what() << "\n";
    return 1;
  }
  // The peaks are kept in the folder too, so that a resumed run uses the same floors.
  table.peaks = measured_peaks(options.device, directory + "/peaks_" + device + ".txt");
  const auto tables_of = [&](bool finished) {
    table.rows.clear();
    for (const auto& [task, row] : rows) table.rows.push_back(row);
    table.finished = finished;
    return table;
  };
  std::cout << "rkt baselines: " << tasks.size() << " tasks on " << device << " ("
            << table.peaks.device_name << "), " << rows.size()
            << " measured earlier in " << directory
            << (from_earlier_table ? " (" + std::to_string(from_earlier_table) +
                                         " of them read from its results.json)"
                                   : std::string())
            << ", seed " << base_seed() << "\n"
            << std::flush;
  int measured_now = 0, kept = 0, problems = 0;
  const auto job_start = std::chrono::steady_clock::now();
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const TaskSpec& task = *tasks[t];
    const std::string record = record_path(directory, task.id(), device);
    const std::string marker = record + ".started";
    if (rows.count(task.id()) != 0) {
      ++kept;
      continue;
    }
    BaselineRow row;
    if (file_exists(marker)) {
      // The process died while measuring this task in an earlier run (a crash, not an
      // exception): recorded as a problem rather than retried forever.
      row.task = task.id();
      row.device = device;
      row.problem = "the process died while measuring this task in an earlier run (" + marker +
                    " was left behind); remove the marker to measure it again";
    } else {
      write_file_atomically(marker, utc_time("%Y-%m-%dT%H:%M:%SZ") + "\n");
      std::cout << "[" << t + 1 << "/" << tasks.size() << "] " << task.id() << std::flush;
      row = measure_baseline_row(task, options.device, table.peaks);
      const BaselineTiming* fp32 = row.find("eager_fp32");
      std::cout << "  eager_fp32 " << median_text(fp32) << " ms, " << std::fixed
                << std::setprecision(1) << row.seconds << " s" << std::defaultfloat << "\n"
                << std::flush;
      ++measured_now;
    }
    problems += !row.problem.empty();
    write_file_atomically(record, serialize(row));
    ::unlink(marker.c_str());
    rows[task.id()] = row;
    // Rewritten after every task: a killed job loses nothing already measured.
    write_tables(directory, tables_of(false));
  }
  write_tables(directory, tables_of(true));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - job_start).count();
  std::cout << "rkt baselines: measured " << measured_now << " tasks in " << std::fixed
            << std::setprecision(1) << seconds << " s, kept " << kept
            << " measured earlier, " << problems << " with problems; wrote " << directory
            << "/results.json, report.md and report.html\n";
  return measured_now + kept > problems ? 0 : 1;
}

int run_baselines_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  std::string error;
  if (!parse_named_options(args, {"--out", "--task", "--device", "--shard"}, {}, values, error)) {
    return report_usage_error(error);
  }
  BaselineJobOptions options;
  if (values.count("--shard")) {
    try {
      options.shard = parse_shard(values["--shard"]);
    } catch (const std::invalid_argument& invalid) {
      return report_usage_error(invalid.what());
    }
  }
  options.output_directory = values.count("--out") ? values["--out"] : "";
  options.task_filter = values.count("--task") ? values["--task"] : "";
  if (values.count("--device")) {
    if (values["--device"] != "cpu" && values["--device"] != "cuda") {
      return report_usage_error("--device takes 'cpu' or 'cuda', not '" + values["--device"] +
                                "'");
    }
    options.device = values["--device"] == "cpu" ? Device::cpu : Device::cuda;
  } else {
    options.device = device_available(Device::cuda) ? Device::cuda : Device::cpu;
  }
  return run_baseline_job(options);
}

}  // namespace rkt
