#include "framework/worker_timing.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "framework/cache_flush.h"
#include "framework/device_support.h"
#include "framework/kernel_library.h"
#include "framework/shared_tensors.h"
#include "framework/torch_bridge.h"
#include "framework/worker_process.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

wire::TensorRef reference_to(const at::Tensor& tensor, std::vector<SharedLocationRef>& buffers) {
  const std::optional<SharedLocation> location = locate_shared(tensor);
  if (!location) throw std::logic_error("a timed tensor is not in shared memory");
  buffers.push_back({location->buffer, location->fd});
  return tensor_reference(tensor, *location);
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double judge_empty_request_ms(Device device, int samples) {
  KernelStreamScope scope(device);
  double cheapest_ms = 0;
  for (int round = 0; round < defaults::kTimingCalibrationRounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    flush_caches(device);
    scope.mark_start();
    scope.mark_end();
    scope.elapsed_milliseconds();
    const double cycle_ms = milliseconds_since(start);
    cheapest_ms = round == 0 ? cycle_ms : std::min(cheapest_ms, cycle_ms);
  }
  return cheapest_ms * samples + defaults::kTimingCrossCheckRoundTripMilliseconds;
}

std::string TimingCrossCheck::describe() const {
  std::ostringstream text;
  text << violations << " of " << requests << " timed requests unexplained by the claimed times; "
       << "judge wall " << judge_ms << " ms, claimed " << claimed_ms << " ms, empty request (judge's clock) "
       << empty_request_ms << " ms";
  if (!first_violation.empty()) text << "; first: " << first_violation;
  return text.str();
}

std::string check_request_times(double judge_ms, double claimed_ms, double empty_ms, int samples) {
  std::ostringstream why;
  if (claimed_ms > judge_ms) {
    why << "the worker claims " << claimed_ms << " ms of kernel time in a request that took "
        << judge_ms << " ms";
    return why.str();
  }
  const double explained = claimed_ms * (1 + defaults::kTimingCrossCheckTolerance) +
                           empty_ms * (1 + defaults::kTimingCrossCheckTolerance) +
                           defaults::kTimingCrossCheckSlackMilliseconds * samples;
  if (judge_ms > explained) {
    why << "the request took " << judge_ms << " ms on the judge's clock but the claimed times ("
        << claimed_ms << " ms) and an empty request (" << empty_ms << " ms) explain at most "
        << explained << " ms";
    return why.str();
  }
  return "";
}

Measurement measure_in_worker(const KernelSpec& kernel, const std::vector<SharedArguments>& sets,
                              const TimingOptions& options, TimingCrossCheck& check) {
  wire::Request base;
  base.kind = wire::RequestKind::measure;
  base.kernel = worker_kernel_index(kernel);
  std::vector<SharedLocationRef> buffers;
  for (const SharedArguments& set : sets) {
    wire::ArgumentSet arguments;
    for (const at::Tensor& input : set.inputs) arguments.inputs.push_back(reference_to(input, buffers));
    for (const at::Tensor& output : set.outputs) arguments.outputs.push_back(reference_to(output, buffers));
    base.sets.push_back(arguments);
  }
  // Only the round trip is timed: freeing released buffers (cudaFree synchronises) is not part
  // of the request's cost.
  double round_trip_ms = 0;
  const auto ask = [&](wire::Request request) {
    request.released = take_released_buffers();
    try {
      WorkerProcess& worker = current_worker();
      const auto sent = std::chrono::steady_clock::now();
      wire::Reply reply = worker.ask(request, buffers, defaults::kWorkerReplyTimeoutSeconds);
      round_trip_ms = milliseconds_since(sent);
      if (reply.device_lost) discard_worker();
      release_confirmed();
      if (!reply.ok) throw std::runtime_error(reply.error);
      if (reply.samples.size() != request.samples) {
        throw std::runtime_error("the worker returned " + std::to_string(reply.samples.size()) +
                                 " samples for " + std::to_string(request.samples) + " timed calls");
      }
      return reply;
    } catch (const WorkerFailure&) {
      discard_worker();
      throw;
    }
  };
  const int batch = defaults::kWorkerSamplesPerRequest;

  wire::Request warmup = base;
  warmup.samples = 0;
  warmup.warmup_milliseconds = options.warmup_milliseconds;
  ask(warmup);

  // What a request costs without the kernel (flushes, clock marks), measured by the judge in
  // its own process: a worker that slowed its calibration down could hide kernel time in it.
  check.empty_request_ms = judge_empty_request_ms(kernel.device(), batch);

  Measurement measurement;
  const auto start = std::chrono::steady_clock::now();
  // A request the judge's clock does not explain is not judged alone (a scheduling hiccup can
  // cause one): sampling goes on until kTimingCrossCheckMinRequests requests have been checked.
  const auto undecided = [&] {
    return check.violations > 0 && check.requests < defaults::kTimingCrossCheckMinRequests;
  };
  while (undecided() || !sampling_complete(measurement.samples, milliseconds_since(start) / 1e3,
                                           options, measurement.stop_reason)) {
    wire::Request timed = base;
    timed.samples = batch;
    timed.first_set = static_cast<std::uint32_t>(measurement.samples.size() % sets.size());
    const wire::Reply reply = ask(timed);
    const double judge_ms = round_trip_ms;
    double claimed_ms = 0;
    for (double sample : reply.samples) claimed_ms += sample;
    ++check.requests;
    check.judge_ms += judge_ms;
    check.claimed_ms += claimed_ms;
    const std::string violation = check_request_times(judge_ms, claimed_ms, check.empty_request_ms, batch);
    if (!violation.empty()) {
      ++check.violations;
      if (check.first_violation.empty()) check.first_violation = violation;
    }
    measurement.samples.insert(measurement.samples.end(), reply.samples.begin(), reply.samples.end());
  }
  measurement.summary = summarize_samples(measurement.samples);
  return measurement;
}

}  // namespace rkt
