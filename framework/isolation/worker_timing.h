// Timing a kernel that runs in a worker. The worker times each call (CUDA events on its stream,
// or its host clock) and the judge cannot see inside it, so the judge checks every claim against
// its own clock: the wall time of each request must be explained by the claimed kernel times
// plus what the same request costs with an empty kernel (measured by the judge in its own process).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "framework/timing/timing_engine.h"
#include "rkt/defaults.h"
#include "rkt/registration.h"

namespace rkt {

/// Inputs and preallocated outputs of one timed call, in shared memory.
struct SharedArguments {
  std::vector<at::Tensor> inputs, outputs;
};

/// What the judge's clock said about the worker's claims.
struct TimingCrossCheck {
  int requests = 0;
  int violations = 0;                ///< Requests whose wall time the claims do not explain.
  double empty_request_ms = 0;       ///< [ms] judge_empty_request_ms() for the request size
  double judge_ms = 0, claimed_ms = 0;  ///< [ms] totals over the timed requests
  int excused_by_load = 0;           ///< Slow requests that a re-measured empty request explained.
  double loaded_empty_request_ms = 0;  ///< [ms] the largest such re-measurement
  std::string first_violation;
  /// The kernel set L2 persistence, taken away before each timed sample (the benchmark's note).
  bool l2_persistence_reset = false;
  /// More than half of the requests broke the rule: the times are not the kernel's.
  bool forged() const {
    return requests >= defaults::kTimingCrossCheckMinRequests && 2 * violations > requests;
  }
  /// Not forged, but more than half of the requests were explained only by re-measuring the
  /// loaded machine. Loaded that much, an empty request costs several times its calibration, and
  /// a worker whose clock runs slow by as much would be excused too (CI, 2026-12-05: a clock ten
  /// times slow passed so): the times are refused, for the load.
  bool load_dominated() const {
    return !forged() && requests >= defaults::kTimingCrossCheckMinRequests &&
           2 * (violations + excused_by_load) > requests;
  }
  std::string describe() const;
};

/// Whether one request's times are consistent: `judge_ms` is the judge's wall time of a request
/// of `samples` timed calls whose claimed times sum to `claimed_ms`; `empty_ms` the same request
/// with an empty kernel. "" when consistent, else why not.
std::string check_request_times(double judge_ms, double claimed_ms, double empty_ms, int samples);

/// [ms] What a request of `samples` timed calls costs without a kernel: the judge runs the same
/// cache flushes and clock marks on `device` in its own process (cheapest of
/// kTimingCalibrationRounds, measured once per process and device) and adds the round-trip
/// allowance. On the CPU, where a cycle costs tens of milliseconds, a `cache_path` (the main
/// job's scratch folder) holding an earlier process's calibration is read instead.
double judge_empty_request_ms(Device device, int samples, const std::string& cache_path = "");
/// Writes this process's CPU calibration to `cache_path` for the run's other processes, unless
/// it is there already (called once the calibration is known to be clean).
void keep_empty_request_calibration(Device device, const std::string& cache_path);

/// [ms] The same as judge_empty_request_ms, measured now (one pass of `samples` cycles, not
/// cached): what an empty request costs on the machine as loaded at this moment.
double judge_empty_request_now_ms(Device device, int samples);

/// Whether the machine's load excuses a request that the calibrated empty request did not
/// explain: "" when the judge's re-measurement `empty_now_ms` explains it and the worker used at
/// most kTimingLoadCheckWorkerBusyFraction of the `watched_ms` the judge watched it on the
/// processor (`worker_busy_ms`, -1 when unknown); else why not.
std::string excuse_by_load(double judge_ms, double claimed_ms, double empty_now_ms,
                           double worker_busy_ms, double watched_ms, int samples);

/// Measures `kernel` in its worker over `sets` with the engine's options and stopping rule
/// (checked by the judge between requests).
/// The worker must stay idle while the judge calibrates (kTimingLoadCheckWorkerBusyFraction):
/// one that loads the machine then to inflate the calibration is refused.
Measurement measure_in_worker(const KernelSpec& kernel, const std::vector<SharedArguments>& sets,
                              const TimingOptions& options, TimingCrossCheck& check,
                              const std::string& calibration_cache = "");

/// [calls] How many timed calls one of measure_in_worker's requests makes on `device`.
int worker_samples_per_request(Device device);

/// One more request shaped as measure_in_worker's: `samples` timed calls over `sets` from
/// `first_set` on (flushed caches, the same buffers), without warm-up or cross-check; returns the
/// worker's claimed times [ms]. The benchmark's fresh-values check calls it after the loop.
std::vector<double> timed_calls_in_worker(const KernelSpec& kernel,
                                          const std::vector<SharedArguments>& sets,
                                          std::uint32_t first_set, int samples);

}  // namespace rkt
