// Timing a kernel that runs in a worker. The worker times each call (CUDA events on its stream,
// or its host clock) and the judge cannot see inside it, so the judge checks every claim against
// its own clock: the wall time of each request must be explained by the claimed kernel times
// plus what the same request costs with an empty kernel (measured by the judge in its own process).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "framework/timing_engine.h"
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
  std::string first_violation;
  /// More than half of the requests broke the rule: the times are not the kernel's.
  bool forged() const {
    return requests >= defaults::kTimingCrossCheckMinRequests && 2 * violations > requests;
  }
  std::string describe() const;
};

/// Whether one request's times are consistent: `judge_ms` is the judge's wall time of a request
/// of `samples` timed calls whose claimed times sum to `claimed_ms`; `empty_ms` the same request
/// with an empty kernel. "" when consistent, else why not.
std::string check_request_times(double judge_ms, double claimed_ms, double empty_ms, int samples);

/// [ms] What a request of `samples` timed calls costs without a kernel: the judge runs the same
/// cache flushes and clock marks on `device` in its own process (cheapest of
/// kTimingCalibrationRounds) and adds the round-trip allowance.
double judge_empty_request_ms(Device device, int samples);

/// Measures `kernel` in its worker over `sets` with the engine's options and stopping rule
/// (checked by the judge between requests).
Measurement measure_in_worker(const KernelSpec& kernel, const std::vector<SharedArguments>& sets,
                              const TimingOptions& options, TimingCrossCheck& check);

}  // namespace rkt
