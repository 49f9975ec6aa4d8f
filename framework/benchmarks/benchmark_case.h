// Benchmarking one kernel against its task's baselines with the timing engine.
#pragma once

#include "framework/benchmarks/benchmark_record.h"
#include "framework/cases/correctness_case.h"
#include "framework/timing/timing_engine.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// The benchmark's input sets (defaults::kBenchmarkInputSets of them, each from its own seed) of
/// `task` at its test dims, drawn for `kernel` and complete on its device when this returns: the
/// draw has finished on every stream, so no timed call shares the device with it.
std::vector<PreparedCase> prepare_benchmark_input_sets(const KernelSpec& kernel, const TaskSpec& task);

/// The baselines every kernel is compared with, in report order.
const std::vector<std::string>& baseline_names();

/// Measures `kernel` at its test dims: timing (flushed caches, rotating inputs, spot-checked
/// outputs), peak memory, the physical floor and roofline, and every baseline with bootstrap
/// speedup intervals. Never throws: problems land in `record.problem`.
/// `peaks_cache` is passed to measured_peaks(), `calibration_cache` to the timing cross-check
/// (judge_empty_request_ms).
BenchmarkRecord benchmark_kernel(const KernelSpec& kernel, const TaskSpec& task,
                                 const std::string& peaks_cache = "",
                                 const std::string& calibration_cache = "");

/// One baseline measured without a kernel (`rkt baselines`).
struct BaselineMeasurement {
  std::string name;           ///< "eager_fp32", "eager_tf32" or "compiled"
  std::string absent_reason;  ///< Set when the baseline cannot run; then nothing was timed.
  std::string measures;       ///< What it times (baseline_measures()).
  Measurement timing;
  double peak_memory_bytes = -1;  // [B] added by one call above resident inputs; -1 unknown
};

/// Every baseline of `task`'s primary config at its test dims on `device`, in baseline_names()
/// order, timed as benchmark_kernel times them (same input sets, cache flush, stopping rule),
/// with the peak memory of one call. Throws when the inputs cannot be prepared.
std::vector<BaselineMeasurement> measure_baselines(const TaskSpec& task, Device device);

/// Times only `kernel` (for Google Benchmark entries).
Measurement time_kernel(const KernelSpec& kernel, const TaskSpec& task);
/// Times only one baseline of `task` on `device`; `absent_reason` is set when it cannot run.
Measurement time_baseline(const TaskSpec& task, Device device, const std::string& baseline,
                          std::string& absent_reason);

}  // namespace rkt
