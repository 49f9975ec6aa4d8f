// What one kernel's benchmark measured: times, baselines, memory, floor, roofline, speedups.
// A child process writes it; the main job reads it back (serialize / deserialize).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/timing/sample_statistics.h"

namespace rkt {

/// One baseline of the kernel's task, as measured beside the kernel.
struct BaselineResult {
  std::string name;             ///< "eager_fp32", "eager_tf32" or "compiled"
  bool available = false;
  std::string absent_reason;    ///< Why it was not measured, when !available.
  std::string measures;         ///< What it times (baseline_measures()).
  SampleSummary time;
  double peak_memory_bytes = -1;  // [B] added by one call above resident inputs; -1 unknown
  RatioInterval speedup;          ///< baseline median / kernel median, bootstrap interval
  double memory_efficiency = 0;   ///< baseline peak memory / kernel peak memory; 0 unknown
};

struct BenchmarkRecord {
  std::string task, kernel, device, precision, dims;
  bool measured = false;
  std::string problem;  ///< Why the kernel was not measured, when !measured.
  SampleSummary time;
  std::string stop_reason;
  double peak_memory_bytes = -1;        // [B]; -1 unknown (CPU)
  double floor_ms = 0;                  // [ms] physical floor at the measured peaks
  bool impossible = false;              ///< Median under kImpossibleFloorFraction x floor.
  double achieved_bytes_per_second = 0;  // [B/s] minimal bytes / median
  double achieved_flops_per_second = 0;  // [FLOP/s] flops / median
  double bandwidth_fraction = 0;         // of the measured copy bandwidth
  double flops_fraction = 0;             // of the measured peak for the kernel's precision
  int spot_checks = 0;
  int spot_check_failures = 0;
  std::string spot_check_message;
  std::vector<BaselineResult> baselines;
  std::string strongest_baseline;  ///< The available baseline with the lowest median.
  RatioInterval speedup_vs_strongest;
  /// The speedup interval is wholly above 1 against the strongest baseline, and nothing failed.
  bool faster_than_strongest() const;
};

/// "key=value" lines; strings escaped so that one record is one line per field.
std::string serialize(const BenchmarkRecord& record);
/// Throws std::invalid_argument naming a malformed line.
BenchmarkRecord deserialize_benchmark_record(const std::string& text);

}  // namespace rkt
