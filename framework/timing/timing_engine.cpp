#include "framework/timing/timing_engine.h"

#include <ATen/ATen.h>

#include <chrono>
#include <vector>

#include "framework/base/phase_times.h"
#include "framework/runtime/device_support.h"
#include "rkt/defaults.h"

#if RKT_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace rkt {

TimingOptions default_timing_options(Device device) {
  TimingOptions options;
  options.warmup_milliseconds = defaults::kBenchmarkWarmupMilliseconds;
  options.target_noise = defaults::kBenchmarkTargetNoise;
  options.min_samples = defaults::kBenchmarkMinSamples;
  options.max_samples = defaults::kBenchmarkMaxSamples;
  options.budget_milliseconds = device == Device::cuda ? defaults::kBenchmarkBudgetMillisecondsCuda
                                                       : defaults::kBenchmarkBudgetMillisecondsCpu;
  options.wall_limit_seconds = device == Device::cuda ? defaults::kBenchmarkWallLimitSecondsCuda
                                                      : defaults::kBenchmarkWallLimitSecondsCpu;
  return options;
}

bool sampling_complete(const std::vector<double>& samples, double wall_seconds,
                       const TimingOptions& options, std::string& reason) {
  const int count = static_cast<int>(samples.size());
  if (count >= options.max_samples) {
    reason = "max samples (" + std::to_string(options.max_samples) + ")";
    return true;
  }
  if (count < options.min_samples) return false;
  if (relative_noise_of_median(samples) < options.target_noise) {
    reason = "noise of the median under " + std::to_string(options.target_noise * 100) + "%";
    return true;
  }
  double spent = 0;
  for (double sample : samples) spent += sample;
  if (spent >= options.budget_milliseconds) {
    reason = "time budget (" + std::to_string(static_cast<int>(options.budget_milliseconds)) +
             " ms) spent";
    return true;
  }
  if (wall_seconds >= options.wall_limit_seconds) {
    reason = "wall-clock limit (" + std::to_string(static_cast<int>(options.wall_limit_seconds)) +
             " s) reached";
    return true;
  }
  return false;
}

Measurement measure(Device device, const TimingOptions& options,
                    const std::function<void(int)>& before_sample,
                    const std::function<void(int)>& timed) {
  ScopedPhase phase(options.phase);
  KernelStreamScope scope(device);
  // Warm-up: calls (without cache flushes) for warmup_milliseconds of wall-clock time, at least
  // one. Counting wall time rather than timed work keeps it short for microsecond kernels.
  const auto warmup_start = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    timed(i);
    scope.synchronize();
    const double elapsed = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - warmup_start)
                               .count();
    if (elapsed >= options.warmup_milliseconds) break;
  }
  Measurement measurement;
  const auto start = std::chrono::steady_clock::now();
  const auto wall_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (!sampling_complete(measurement.samples, wall_seconds(), options,
                            measurement.stop_reason)) {
    const int i = static_cast<int>(measurement.samples.size());
    before_sample(i);
    scope.synchronize();  // The flush and rotation are finished before the clock starts.
    scope.mark_start();
    timed(i);
    scope.mark_end();
    measurement.samples.push_back(scope.elapsed_milliseconds());
  }
  measurement.summary = summarize_samples(measurement.samples);
  return measurement;
}


}  // namespace rkt
