// A finished run, as the report writers see it, and the aggregates the field reports.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/base/phase_times.h"
#include "framework/benchmarks/benchmark_record.h"
#include "framework/supervision/supervisor.h"
#include "framework/timing/device_peaks.h"

namespace rkt {

/// One kernel's tests and benchmark.
/// The problem a kernel's entry carries while its cases still run (results.json is rewritten after
/// each case): a judge killed then (rkt eval's --file-timeout, a kill of rkt run) leaves the
/// kernel failed with its finished cases kept and this problem saying why the rest are missing.
inline constexpr const char* kCasesStillRunningProblem =
    "unfinished: the judge was stopped while this kernel's cases ran; only the cases that finished "
    "are recorded";

struct KernelReport {
  std::string task, kernel, device, precision;
  /// The precision the kernel declares its sums are kept in (KernelSpec::accumulates_in).
  std::string accumulation = "fp32";
  std::map<std::string, std::string> waived_gates;  ///< gate -> written reason
  std::vector<std::string> allowed_operators;
  /// The dims the kernel declares it supports ("N % 4 == 0"): its results hold inside them only.
  std::vector<std::string> supported_dims;
  /// The alignment the kernel declares its buffers need (requires_alignment), in bytes; 0: none.
  std::int64_t alignment_bytes = 0;
  SupervisedRun cases;
  BenchmarkRecord benchmark;
  double seconds = 0;
  /// Where the kernel's cases and benchmark spent their time in their processes (ms per phase,
  /// base/phase_times.h); the rest of `seconds` went to starting processes and workers.
  PhaseTimes phases;
  /// The task filter's verdict on the task (TaskSeverity): "healthy", "precision_blind" (scored,
  /// marked; the kernel's precision claim is unverifiable) or "excluded" (left out of aggregates).
  std::string task_severity = "healthy";
  std::vector<std::string> task_reasons;  ///< Why, when not healthy.

  std::string full_id() const { return task + "/" + kernel; }
  bool task_excluded() const { return task_severity == "excluded"; }
  bool task_precision_blind() const { return task_severity == "precision_blind"; }
  /// "verified", or "unverifiable" on a precision-blind task (a bf16 computation passes it).
  std::string precision_claim() const {
    return task_precision_blind() ? "unverifiable" : "verified";
  }
  /// "pass" (every case passed or was skipped for a stated reason), "skipped" (nothing ran:
  /// no device), or "FAIL".
  std::string verdict() const;
  bool correct() const { return verdict() == "pass"; }
};

/// Aggregates over the kernels of one device, excluded tasks and unmeasured kernels left out.
struct DeviceAggregates {
  std::string device;
  int kernels = 0;                ///< Counted kernels (measured or failed; not skipped).
  int correct = 0;
  double correctness_rate = 0;
  std::map<std::string, double> fast_p;  ///< "0", "1", "1.5", "2" -> share of kernels
  std::map<std::string, double> geomean_speedup;  ///< baseline name or "strongest" -> geomean
  double geomean_memory_efficiency = 0;           ///< against the strongest baseline
  int impossible = 0;
  int excluded_left_out = 0;  ///< Kernels of excluded tasks (not counted anywhere else).
  int precision_blind = 0;    ///< Counted kernels on precision-blind tasks.
};

/// fast_p as KernelBench counts it: correct (every gate passed), not impossible, and faster than
/// the strongest baseline by more than p. Speedup geomeans use correct, possible kernels only.
std::vector<DeviceAggregates> aggregate(const std::vector<KernelReport>& kernels);

struct RunReport {
  std::string started_utc;
  std::uint64_t seed = 0;
  std::string hidden_inputs;
  /// Where kernels ran: isolated (with the worker sandbox) or in-process (debugging).
  std::string isolation;
  std::map<std::string, DevicePeaks> peaks;  ///< device -> measured peaks
  std::vector<KernelReport> kernels;
  bool finished = false;
  /// The --kernel fragments the run selected kernels with, ", " between them ("" = all).
  std::string kernel_filter;
  /// `rkt run --shard I/N`: this run's shard (0/0 when not sharded) and how many kernels the
  /// whole run selects over all its shards (framework/runs/run_sharding.h).
  int shard_index = 0, shard_count = 0;
  int selected_kernels = 0;
  int merged_shards = 0;  ///< `rkt merge`: how many shards this report combines (0: none).
};

/// The schema results.json declares (docs/results_schema.md); 3 added the shard fields.
inline constexpr const char* kResultsSchema = "rkt-results/3";

/// "Where the time went: 213 s for 23 kernels: drawing inputs 12.1 s, ...": the kernels' phases
/// summed, and the rest (processes, workers, LibTorch and CUDA start).
std::string time_breakdown_text(const RunReport& report);

/// results.json: the documented schema kResultsSchema (docs/results_schema.md).
std::string results_json(const RunReport& report);
/// report.md: a summary for a pull request or CI.
std::string report_markdown(const RunReport& report);
/// report.html: one self-contained page (no external resources): tables and an SVG scatter of
/// speedup against memory efficiency.
std::string report_html(const RunReport& report);

}  // namespace rkt
