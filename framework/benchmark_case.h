// Benchmarking one kernel against its task's baselines with the timing engine.
#pragma once

#include "framework/benchmark_record.h"
#include "framework/timing_engine.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// The baselines every kernel is compared with, in report order.
const std::vector<std::string>& baseline_names();

/// Measures `kernel` at its test dims: timing (flushed caches, rotating inputs, spot-checked
/// outputs), peak memory, the physical floor and roofline, and every baseline with bootstrap
/// speedup intervals. Never throws: problems land in `record.problem`.
/// `peaks_cache` is passed to measured_peaks().
BenchmarkRecord benchmark_kernel(const KernelSpec& kernel, const TaskSpec& task,
                                 const std::string& peaks_cache = "");

/// Times only `kernel` (for Google Benchmark entries).
Measurement time_kernel(const KernelSpec& kernel, const TaskSpec& task);
/// Times only one baseline of `task` on `device`; `absent_reason` is set when it cannot run.
Measurement time_baseline(const TaskSpec& task, Device device, const std::string& baseline,
                          std::string& absent_reason);

}  // namespace rkt
