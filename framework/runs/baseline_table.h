// The baseline table (`rkt baselines`): every task's baselines measured without a kernel, so the
// baselines themselves can be checked against published figures (tools/gpu/compare_kb_baselines.py
// compares them with KernelBench's problems measured on the H200).
//
// The job is resumable: each task's measurement is kept in its own record file under
// DIR/baselines/ as soon as it is taken, and the tables (results.json, report.md, report.html) are
// rewritten from the records after every task. A second run into the same DIR measures only the
// tasks without a record, so a killed run loses at most the task it was measuring.
#pragma once

#include <string>
#include <vector>

#include "framework/runs/run_sharding.h"
#include "framework/timing/device_peaks.h"
#include "framework/timing/sample_statistics.h"
#include "rkt/task.h"

namespace rkt {

/// One baseline of one task.
struct BaselineTiming {
  std::string name;  ///< "eager_fp32", "eager_tf32" or "compiled"
  bool available = false;
  std::string absent_reason;
  SampleSummary time;
  double median_low = 0, median_high = 0;  // [ms] ~95% confidence interval of the median
  std::string stop_reason;
  double peak_memory_bytes = -1;  // [B] one call above resident inputs; -1 unknown (CPU)
};

/// One task's row of the table.
struct BaselineRow {
  std::string task, device, dims;
  double minimal_bytes = 0;  // [B] at the measured dims
  double flops = 0;          // [FLOP] at the measured dims
  double floor_ms = 0;       // [ms] physical floor for fp32 arithmetic at the measured peaks
  double floor_tf32_ms = 0;  // [ms] the same with the TF32 matmul peak (CUDA)
  std::vector<BaselineTiming> baselines;
  /// eager_fp32 median / eager_tf32 median, and eager_fp32 median / compiled median, with
  /// bootstrap intervals: how much faster TF32 and AOTInductor make the eager fp32 reference.
  RatioInterval tf32_speedup, compiled_speedup;
  std::string problem;  ///< Why nothing was measured (an exception, a crash in an earlier run).
  double seconds = 0;   // [s] wall time of the task's measurement
  const BaselineTiming* find(const std::string& name) const;
};

/// Measures `task` on `device` (primary config, test dims). Never throws: a failure lands in
/// `problem`.
BaselineRow measure_baseline_row(const TaskSpec& task, Device device, const DevicePeaks& peaks);

/// "key=value" lines, and back (throws std::invalid_argument on a malformed record).
std::string serialize(const BaselineRow& row);
BaselineRow deserialize_baseline_row(const std::string& text);

struct BaselineTable {
  std::string started_utc;
  std::string device;
  DevicePeaks peaks;
  std::vector<BaselineRow> rows;
  bool finished = false;
};

/// results.json, schema "rkt-baselines/1" (docs/results_schema.md).
std::string baseline_table_json(const BaselineTable& table);
/// The table baseline_table_json wrote (schema rkt-baselines/1), read back; throws
/// std::invalid_argument naming the first field that is missing or malformed.
BaselineTable read_baseline_table(const std::string& json_text);
/// report.md: one row per task, then geometric means per task source.
std::string baseline_table_markdown(const BaselineTable& table);
/// report.html: the same tables on one self-contained page.
std::string baseline_table_html(const BaselineTable& table);

struct BaselineJobOptions {
  std::string output_directory;  ///< Default: runs/baselines-<UTC time>.
  /// Only tasks whose id contains one of these comma-separated fragments ("" = all).
  std::string task_filter;
  Device device = Device::cuda;
  /// `--shard I/N`: only the tasks at positions I-1, I-1+N, ... of the selected tasks sorted by
  /// id (the rule of `rkt run --shard`, framework/runs/run_sharding.h); default: all.
  ShardSpec shard;
};

/// Runs (or resumes) the job; returns the process exit code (0 unless nothing could be measured
/// or the files could not be written).
int run_baseline_job(const BaselineJobOptions& options);

/// `rkt baselines [--out DIR] [--task ID[,ID...]] [--device cpu|cuda] [--shard I/N]`.
int run_baselines_command(const std::vector<std::string>& args);

}  // namespace rkt
