#include "framework/runs/run_folder.h"

#include <sys/stat.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "framework/base/file_access.h"
#include "framework/base/json_fields.h"
#include "framework/runs/ratio_interval_field.h"
#include "framework/supervision/case_records_json.h"

namespace rkt {
namespace {

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

SampleSummary read_summary(const JsonFields& time) {
  SampleSummary summary;
  summary.median = time.number("median_ms");
  summary.first_quartile = time.number("q1_ms");
  summary.third_quartile = time.number("q3_ms");
  summary.mean = time.number("mean_ms");
  summary.stddev = time.number("stddev_ms");
  summary.count = time.integer("samples");
  summary.relative_noise = time.number("relative_noise");
  return summary;
}

CaseRecord read_case(const JsonFields& fields) {
  CaseRecord record;
  record.name = fields.text("name");
  record.status = fields.text("status");
  record.milliseconds = fields.number("milliseconds");
  record.message = fields.text("message");
  // Runs recorded before cases carried their breakdown have no field: nothing attributed.
  if (fields.has("time_breakdown_ms")) {
    const JsonFields phases = fields.object("time_breakdown_ms");
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      const char* name = to_string(static_cast<Phase>(i));
      if (phases.has(name)) record.phases.milliseconds[i] = phases.number(name);
    }
  }
  if (fields.has("dims")) {
    CaseDetails& details = record.details;
    details.known = true;
    for (const auto& [name, size] : fields.members("dims")) details.dims[name] = size.as_integer();
    details.scale = fields.number("scale");
    const std::optional<std::uint64_t> seed = fields.unsigned_integer_or_null("seed");
    details.seed_known = seed.has_value();
    if (details.seed_known) details.seed = *seed;
    details.config = fields.text("config");
    // The writer recorded the whole command that replays this case (replay_command_line): its
    // environment and library are read back, the program and filter rebuilt by whoever prints it.
    const ReplayParts replay = parse_replay_command(fields.text("reproduce"));
    details.reproduce = replay.environment;
    details.kernel_library = replay.kernel_library;
  }
  return record;
}

BenchmarkRecord read_benchmark(const JsonFields& fields, const KernelReport& kernel) {
  BenchmarkRecord bench;
  bench.task = kernel.task;
  bench.kernel = kernel.kernel;
  bench.device = kernel.device;
  bench.precision = kernel.precision;
  bench.measured = fields.flag("measured");
  bench.problem = fields.text("problem");
  bench.dims = fields.text("dims");
  bench.time = read_summary(fields.object("time"));
  bench.stop_reason = fields.text("stop_reason");
  bench.peak_memory_bytes = fields.number("peak_memory_bytes");
  bench.floor_ms = fields.number("floor_ms");
  bench.impossible = fields.flag("impossible");
  const JsonFields roofline = fields.object("roofline");
  bench.achieved_bytes_per_second = roofline.number("achieved_bytes_per_second");
  bench.achieved_flops_per_second = roofline.number("achieved_flops_per_second");
  bench.bandwidth_fraction = roofline.number("bandwidth_fraction");
  bench.flops_fraction = roofline.number("flops_fraction");
  const JsonFields spot_checks = fields.object("spot_checks");
  bench.spot_checks = spot_checks.integer("checked");
  bench.spot_check_failures = spot_checks.integer("failed");
  bench.spot_check_message = spot_checks.text("message");
  for (const JsonFields& entry : fields.array("baselines")) {
    BaselineResult baseline;
    baseline.name = entry.text("name");
    baseline.available = entry.flag("available");
    baseline.absent_reason = entry.text("absent_reason");
    baseline.measures = entry.text_or_empty("measures");
    baseline.time = read_summary(entry.object("time"));
    baseline.peak_memory_bytes = entry.number("peak_memory_bytes");
    baseline.speedup = read_ratio_interval(entry.object("speedup"));
    baseline.memory_efficiency = entry.number("memory_efficiency");
    bench.baselines.push_back(baseline);
  }
  bench.strongest_baseline = fields.text("strongest_baseline");
  bench.speedup_vs_strongest = read_ratio_interval(fields.object("speedup_vs_strongest"));
  return bench;
}

KernelReport read_kernel(const JsonFields& fields) {
  KernelReport kernel;
  kernel.task = fields.text("task");
  kernel.kernel = fields.text("kernel");
  kernel.device = fields.text("device");
  kernel.precision = fields.text("precision");
  // Runs recorded before declared accumulation have no field: fp32, the default.
  if (fields.has("accumulation")) kernel.accumulation = fields.text("accumulation");
  kernel.task_severity = fields.text("task_severity");
  kernel.task_reasons = fields.strings("task_reasons");
  kernel.seconds = fields.number("seconds");
  for (const auto& [gate, reason] : fields.members("waived_gates")) {
    kernel.waived_gates[gate] = reason.as_text();
  }
  kernel.allowed_operators = fields.strings("allowed_operators");
  kernel.supported_dims = fields.strings("supports");
  // Runs recorded before buffers' alignment was declarable have no field: none declared.
  if (fields.has("alignment_bytes")) kernel.alignment_bytes = static_cast<std::int64_t>(fields.number("alignment_bytes"));
  for (const JsonFields& entry : fields.array("cases")) kernel.cases.cases.push_back(read_case(entry));
  // Runs recorded before the time breakdown have no field: nothing attributed.
  if (fields.has("time_breakdown_s")) {
    const JsonFields phases = fields.object("time_breakdown_s");
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      const char* name = to_string(static_cast<Phase>(i));
      if (phases.has(name)) kernel.phases.milliseconds[i] = phases.number(name) * 1000;
    }
  }
  kernel.cases.problems = fields.strings("problems");
  // Runs recorded before processes were counted have no field: none counted.
  if (fields.has("child_processes")) {
    const JsonFields processes = fields.object("child_processes");
    kernel.cases.processes = static_cast<int>(processes.number("started"));
    kernel.cases.processes_started_ahead = static_cast<int>(processes.number("started_ahead"));
  }
  kernel.benchmark = read_benchmark(fields.object("benchmark"), kernel);
  // The verdict is derived from the cases and the benchmark; a file whose recorded verdict
  // disagrees was edited or written by another version, and its comparisons would mislead.
  const std::string recorded = fields.text("verdict");
  if (recorded != kernel.verdict()) {
    JsonFields::fail(fields.path() + ".verdict", "is '" + recorded + "' but its cases and benchmark make it '" +
                                                 kernel.verdict() + "' (" + kernel.full_id() + ")");
  }
  return kernel;
}

RunReport read_report(const JsonFields& top) {
  RunReport report;
  const std::string schema = top.text("schema");
  if (schema != kResultsSchema) {
    throw std::invalid_argument("schema is '" + schema + "', this rkt reads '" +
                                std::string(kResultsSchema) + "'");
  }
  report.started_utc = top.text("started_utc");
  const std::optional<std::uint64_t> seed = top.unsigned_integer_or_null("seed");
  if (!seed) JsonFields::fail("seed", "is not a non-negative integer");
  report.seed = *seed;
  report.hidden_inputs = top.text("hidden_inputs");
  report.isolation = top.text("isolation");
  report.finished = top.flag("finished");
  report.kernel_filter = top.text("kernel_filter");
  if (!top.has("shard")) JsonFields::fail("shard", "is missing");
  if (!top.is_null("shard")) {
    const JsonFields shard_fields = top.object("shard");
    report.shard_index = shard_fields.integer("index");
    report.shard_count = shard_fields.integer("count");
    report.selected_kernels = shard_fields.integer("selected_kernels");
  }
  report.merged_shards = top.integer("merged_shards");
  for (const auto& [device, peaks_fields] : top.members("devices")) {
    DevicePeaks peaks;
    peaks.device_name = peaks_fields.text("name");
    peaks.copy_bytes_per_second = peaks_fields.number("copy_bytes_per_second");
    peaks.fp32_flops_per_second = peaks_fields.number("fp32_flops_per_second");
    peaks.tf32_flops_per_second = peaks_fields.number("tf32_flops_per_second");
    peaks.bf16_flops_per_second = peaks_fields.number("bf16_flops_per_second");
    peaks.harness_overhead_ms = peaks_fields.number("harness_overhead_ms");
    report.peaks[device] = peaks;
  }
  for (const JsonFields& entry : top.array("kernels")) report.kernels.push_back(read_kernel(entry));
  return report;
}

}  // namespace

void write_run_folder(const std::string& directory, const RunReport& report) {
  write_file_atomically(directory + "/results.json", results_json(report));
  write_file_atomically(directory + "/report.md", report_markdown(report));
  write_file_atomically(directory + "/report.html", report_html(report));
}

std::string results_file_of(const std::string& path) {
  return is_directory(path) ? path + "/results.json" : path;
}

RunReport read_run_results(const std::string& path) {
  const std::string file = results_file_of(path);
  if (!file_exists(file)) {
    throw std::invalid_argument("'" + file + "' does not exist" +
                                (file == path ? "" : " (expected a run folder's results.json)"));
  }
  if (is_directory(file)) throw std::invalid_argument("'" + file + "' is a directory");
  const std::string text = read_whole_file(file);
  if (text.empty()) throw std::invalid_argument("'" + file + "' is empty or cannot be read");
  try {
    return read_report(JsonDocument(text).root());
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument("'" + file + "': " + error.what());
  } catch (const std::exception& error) {  // Anything else the reading threw.
    throw std::invalid_argument("'" + file + "': " + error.what());
  }
}

}  // namespace rkt
