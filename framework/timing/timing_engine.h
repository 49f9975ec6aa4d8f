// The measurement loop shared by kernels and baselines: warm-up, untimed preparation before each
// sample (cache flush, input rotation), timed calls on the kernel's stream (CUDA events) or the
// host clock, and a stopping rule on the noise of the median.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/base/phase_times.h"
#include "framework/runtime/cache_flush.h"
#include "framework/timing/sample_statistics.h"
#include "rkt/tensor_view.h"

namespace rkt {

struct TimingOptions {
  double warmup_milliseconds = 0;  // [ms] of wall-clock time
  double target_noise = 0;         // [fraction of the median]
  int min_samples = 0;
  int max_samples = 0;
  double budget_milliseconds = 0;  // [ms of timed work]
  double wall_limit_seconds = 0;   // [s] of wall-clock time, untimed work included
  Phase phase = Phase::timing;     ///< what the measurement's time counts as (phase_times.h)
};

/// The defaults of include/rkt/defaults.h for `device`.
TimingOptions default_timing_options(Device device);

/// True once sampling may stop: at least min_samples and either the noise of the median is under
/// the target, the budget of timed work or the wall-clock limit is spent, or max_samples were
/// taken. `reason` says which.
bool sampling_complete(const std::vector<double>& samples, double wall_seconds,
                       const TimingOptions& options, std::string& reason);

struct Measurement {
  std::vector<double> samples;  // [ms] one per timed call
  SampleSummary summary;
  std::string stop_reason;
};

/// Measures `timed(i)` for samples i = 0, 1, ...; `before_sample(i)` runs first, untimed.
/// On CUDA each sample is timed with events on the current stream.
Measurement measure(Device device, const TimingOptions& options,
                    const std::function<void(int)>& before_sample,
                    const std::function<void(int)>& timed);


}  // namespace rkt
