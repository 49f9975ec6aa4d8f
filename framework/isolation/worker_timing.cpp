#include "framework/isolation/worker_timing.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "framework/base/file_access.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/shared_tensors.h"
#include "framework/isolation/worker_process.h"
#include "framework/runtime/cache_flush.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/torch_bridge.h"
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

// What a worker had done by a moment: its processor time and its runnable time [ms].
struct WorkerActivity {
  double processor_ms = -1;
  double runnable_ms = -1;
};

WorkerActivity activity_of(const WorkerProcess& worker) {
  return {worker.cpu_milliseconds(), worker.runnable_milliseconds()};
}

// [ms] How busy the worker was between two readings: the larger of its processor time and its
// runnable time (a thread that ended meanwhile leaves the runnable sum; the processor time keeps
// it); -1 when neither can be read.
double busy_ms_between(const WorkerActivity& before, const WorkerActivity& after) {
  double busy_ms = -1;
  if (before.processor_ms >= 0 && after.processor_ms >= 0)
    busy_ms = after.processor_ms - before.processor_ms;
  if (before.runnable_ms >= 0 && after.runnable_ms >= 0) {
    busy_ms = std::max(busy_ms, after.runnable_ms - before.runnable_ms);
  }
  return busy_ms;
}

// [ms] The most busy time (busy_ms_between) an idle worker may show in `wall_ms` (the clock
// ticks allow for the resolution of /proc/<pid>/stat).
double worker_idle_limit_ms(double wall_ms) {
  const double clock_tick_ms = 1e3 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return defaults::kTimingLoadCheckWorkerBusyFraction * wall_ms +
         defaults::kTimingLoadCheckIdleClockTicks * clock_tick_ms;
}

// Waits until `start` is kTimingLoadCheckMinimumWatchMilliseconds behind: the judge then reads the worker's
// processor time over a window a spinning thread cannot hide in.
void watch_at_least_the_minimum(std::chrono::steady_clock::time_point start) {
  const double left_ms = defaults::kTimingLoadCheckMinimumWatchMilliseconds - milliseconds_since(start);
  if (left_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(left_ms));
}

// [ms] This process's calibrated flush-and-mark cycle per device.
std::map<Device, double>& calibrated_cycle_ms() {
  static std::map<Device, double> cycle_ms_by_device;
  return cycle_ms_by_device;
}

// [ms] One flush-and-mark cycle, as the worker runs it before each timed call.
double flush_cycle_ms(Device device, KernelStreamScope& scope) {
  const auto start = std::chrono::steady_clock::now();
  flush_caches(device, scope.stream());
  scope.mark_start();
  scope.mark_end();
  scope.elapsed_milliseconds();
  return milliseconds_since(start);
}

}  // namespace

double judge_empty_request_ms(Device device, int samples, const std::string& cache_path) {
  // Measured once per judge process and device: it is a property of the machine (the flush
  // buffer's size and bandwidth), and measuring it per kernel cost each CPU benchmark 0.2 s.
  std::map<Device, double>& cycle_ms_by_device = calibrated_cycle_ms();
  auto known = cycle_ms_by_device.find(device);
  const bool shared = device == Device::cpu && !cache_path.empty();
  if (known == cycle_ms_by_device.end() && shared && file_exists(cache_path)) {
    try {
      known = cycle_ms_by_device.emplace(device, std::stod(read_whole_file(cache_path))).first;
    } catch (const std::exception&) {
      // Unreadable: measured again below.
    }
  }
  if (known == cycle_ms_by_device.end()) {
    KernelStreamScope scope(device);
    double cheapest_ms = 0;
    for (int round = 0; round < defaults::kTimingCalibrationRounds; ++round) {
      const double cycle_ms = flush_cycle_ms(device, scope);
      cheapest_ms = round == 0 ? cycle_ms : std::min(cheapest_ms, cycle_ms);
    }
    known = cycle_ms_by_device.emplace(device, cheapest_ms).first;
  }
  return known->second * samples + defaults::kTimingCrossCheckRoundTripMilliseconds;
}

void keep_empty_request_calibration(Device device, const std::string& cache_path) {
  if (device != Device::cpu || cache_path.empty() || file_exists(cache_path)) return;
  const auto calibrated = calibrated_cycle_ms().find(device);
  if (calibrated == calibrated_cycle_ms().end()) return;
  std::ostringstream text;
  text.precision(17);
  text << calibrated->second << "\n";
  write_file_atomically(cache_path, text.str());
}

double judge_empty_request_now_ms(Device device, int samples) {
  KernelStreamScope scope(device);
  double total_ms = 0;
  for (int call = 0; call < samples; ++call) total_ms += flush_cycle_ms(device, scope);
  return total_ms + defaults::kTimingCrossCheckRoundTripMilliseconds;
}

std::string excuse_by_load(double judge_ms, double claimed_ms, double empty_now_ms,
                           double worker_busy_ms, double watched_ms, int samples) {
  const double idle_limit_ms = worker_idle_limit_ms(watched_ms);
  std::ostringstream why;
  if (worker_busy_ms < 0 || worker_busy_ms > idle_limit_ms) {
    why << "the worker was not idle while the judge re-measured the machine's load (it was "
           "runnable, on a processor or waiting for one, ";
    if (worker_busy_ms < 0) {
      why << "for an unreadable time";
    } else {
      why << worker_busy_ms << " ms";
    }
    why << " in " << watched_ms << " ms; at most " << idle_limit_ms << " ms is idle)";
    return why.str();
  }
  const std::string still = check_request_times(judge_ms, claimed_ms, empty_now_ms, samples);
  if (!still.empty()) {
    why << "not explained by the machine's load either (an empty request re-measured now costs "
        << empty_now_ms << " ms)";
  }
  return why.str();
}

std::string TimingCrossCheck::describe() const {
  std::ostringstream text;
  text << violations << " of " << requests << " timed requests unexplained by the claimed times; "
       << "judge wall " << judge_ms << " ms, claimed " << claimed_ms << " ms, empty request (judge's clock) "
       << empty_request_ms << " ms";
  if (excused_by_load > 0) {
    text << "; " << excused_by_load << " slow request(s) excused by the machine's load (an empty "
         << "request re-measured by the judge, the worker idle, cost up to " << loaded_empty_request_ms
         << " ms)";
  }
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

namespace {

// A measure request over `sets` (their shared buffers go to `buffers`), without samples yet.
wire::Request measure_request(const KernelSpec& kernel, const std::vector<SharedArguments>& sets,
                              std::vector<SharedLocationRef>& buffers) {
  wire::Request base;
  base.kind = wire::RequestKind::measure;
  base.kernel = worker_kernel_index(kernel);
  for (const SharedArguments& set : sets) {
    wire::ArgumentSet arguments;
    for (const at::Tensor& input : set.inputs) arguments.inputs.push_back(reference_to(input, buffers));
    for (const at::Tensor& output : set.outputs) arguments.outputs.push_back(reference_to(output, buffers));
    base.sets.push_back(arguments);
  }
  return base;
}

// Sends one measure request to this process's worker: its reply, checked for the samples it
// owes; `round_trip_ms` gets the judge's wall time of the exchange (freeing released buffers,
// where cudaFree synchronises, is not part of it). Throws what the worker said went wrong.
wire::Reply ask_measure(const KernelSpec& kernel, wire::Request request,
                        const std::vector<SharedLocationRef>& buffers, double& round_trip_ms,
                        bool& l2_persistence_reset) {
  request.released = take_released_buffers();
  try {
    WorkerProcess& worker = current_worker();
    const auto sent = std::chrono::steady_clock::now();
    wire::Reply reply = worker.ask(request, buffers, worker_reply_timeout_seconds());
    round_trip_ms = milliseconds_since(sent);
    if (reply.device_lost) discard_worker();
    release_confirmed();
    if (reply.not_final_at_return)
      throw_if_not_final(kernel.task_id(), reply.error, reply.not_final_output);
    if (!reply.ok) throw std::runtime_error(reply.error);
    l2_persistence_reset = l2_persistence_reset || reply.l2_persistence_reset;
    if (reply.samples.size() != request.samples) {
      throw std::runtime_error("the worker returned " + std::to_string(reply.samples.size()) +
                               " samples for " + std::to_string(request.samples) + " timed calls");
    }
    return reply;
  } catch (const WorkerFailure&) {
    discard_worker();
    throw;
  }
}

}  // namespace

int worker_samples_per_request(Device device) {
  return device == Device::cuda ? defaults::kWorkerSamplesPerRequestCuda
                                : defaults::kWorkerSamplesPerRequestCpu;
}

std::vector<double> timed_calls_in_worker(const KernelSpec& kernel,
                                          const std::vector<SharedArguments>& sets,
                                          std::uint32_t first_set, int samples) {
  std::vector<SharedLocationRef> buffers;
  wire::Request request = measure_request(kernel, sets, buffers);
  request.samples = static_cast<std::uint32_t>(samples);
  request.first_set = first_set;
  double round_trip_ms = 0;
  bool l2_persistence_reset = false;
  return ask_measure(kernel, request, buffers, round_trip_ms, l2_persistence_reset).samples;
}

Measurement measure_in_worker(const KernelSpec& kernel, const std::vector<SharedArguments>& sets,
                              const TimingOptions& options, TimingCrossCheck& check,
                              const std::string& calibration_cache) {
  std::vector<SharedLocationRef> buffers;
  const wire::Request base = measure_request(kernel, sets, buffers);
  double round_trip_ms = 0;
  const auto ask = [&](const wire::Request& request) {
    return ask_measure(kernel, request, buffers, round_trip_ms, check.l2_persistence_reset);
  };
  const int batch = worker_samples_per_request(kernel.device());

  wire::Request warmup = base;
  warmup.samples = 0;
  warmup.warmup_milliseconds = options.warmup_milliseconds;
  ask(warmup);

  // What a request costs without the kernel (flushes, clock marks), measured by the judge in
  // its own process: a worker that slowed its calibration down could hide kernel time in it.
  // The worker has replied and must be idle meanwhile: one that loaded the machine to inflate
  // the calibration is refused.
  {
    WorkerProcess& worker = current_worker();
    const WorkerActivity worker_before = activity_of(worker);
    const auto calibration_start = std::chrono::steady_clock::now();
    check.empty_request_ms = judge_empty_request_ms(kernel.device(), batch, calibration_cache);
    if (kernel.device() == Device::cpu) watch_at_least_the_minimum(calibration_start);
    const double calibration_ms = milliseconds_since(calibration_start);
    const double busy_ms = busy_ms_between(worker_before, activity_of(worker));
    const double idle_limit_ms = worker_idle_limit_ms(calibration_ms);
    // On a GPU the calibration is the device's flush, which a worker's processor time does not
    // slow (and the check has not been run on the H200 yet): CPU kernels only, like the excuse.
    const bool busy = kernel.device() == Device::cpu && (busy_ms < 0 || busy_ms > idle_limit_ms);
    // Kept for the run's other benchmark children only when the worker was idle meanwhile.
    if (!busy) keep_empty_request_calibration(kernel.device(), calibration_cache);
    if (busy) {
      // The calibration is not the machine's, and the worker runs something of its own between
      // requests: neither serves the next kernel.
      calibrated_cycle_ms().erase(kernel.device());
      discard_worker();
      throw std::runtime_error(
          "timing refused: the worker was not idle while the judge calibrated the timing "
          "cross-check (it was runnable, on a processor or waiting for one, " +
          (busy_ms < 0 ? std::string("for an unreadable time") : std::to_string(busy_ms) + " ms") +
          " in " + std::to_string(calibration_ms) + " ms; at most " +
          std::to_string(idle_limit_ms) + " ms is idle)");
    }
  }

  Measurement measurement;
  bool worker_seen_busy = false;  // while the judge re-measured the machine's load
  const auto start = std::chrono::steady_clock::now();
  // A request the judge's clock does not explain is not judged alone (a scheduling hiccup can
  // cause one): sampling goes on until kTimingCrossCheckMinRequests requests have been checked,
  // and while most of them are unexplained, up to kTimingCrossCheckMaxRequests.
  // Requests excused by the machine's load count here too: the load may pass, and when most
  // requests still need the excuse the times are refused (TimingCrossCheck::load_dominated).
  const auto undecided = [&] {
    const int unexplained = check.violations + check.excused_by_load;
    if (unexplained == 0) return false;
    if (check.requests < defaults::kTimingCrossCheckMinRequests) return true;
    return 2 * unexplained > check.requests &&
           check.requests < defaults::kTimingCrossCheckMaxRequests;
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
    std::string violation = check_request_times(judge_ms, claimed_ms, check.empty_request_ms, batch);
    if (!violation.empty() && kernel.device() == Device::cpu) {
      // A loaded machine (other tests, other jobs) slows the worker's cache flushes, which the
      // calibration measured on a quieter machine. The judge re-measures an empty request now
      // while watching the worker, which must be idle: a worker that loaded the machine itself
      // to inflate the re-measurement is not excused. (On a GPU the flush is a small part of a
      // request, and the judge could not see a worker's kernels slowing its own: no excuse.)
      WorkerProcess& worker = current_worker();
      const WorkerActivity worker_before = activity_of(worker);
      const auto watch_start = std::chrono::steady_clock::now();
      const double empty_now_ms = judge_empty_request_now_ms(kernel.device(), batch);
      watch_at_least_the_minimum(watch_start);
      const double watched_ms = milliseconds_since(watch_start);
      const double worker_busy_ms = busy_ms_between(worker_before, activity_of(worker));
      const std::string not_excused =
          excuse_by_load(judge_ms, claimed_ms, empty_now_ms, worker_busy_ms, watched_ms, batch);
      worker_seen_busy = worker_seen_busy || worker_busy_ms < 0 ||
                         worker_busy_ms > worker_idle_limit_ms(watched_ms);
      if (not_excused.empty()) {
        ++check.excused_by_load;
        check.loaded_empty_request_ms = std::max(check.loaded_empty_request_ms, empty_now_ms);
        violation.clear();
      } else {
        violation += "; " + not_excused;
      }
    }
    if (!violation.empty()) {
      ++check.violations;
      if (check.first_violation.empty()) check.first_violation = violation;
    }
    measurement.samples.insert(measurement.samples.end(), reply.samples.begin(), reply.samples.end());
  }
  if (worker_seen_busy) {
    // A worker that ran something of its own while it should have been idle serves no further
    // kernel (its thread would load their measurements), and the calibration made beside it
    // may be inflated: both are dropped, as when it is caught during the calibration.
    calibrated_cycle_ms().erase(kernel.device());
    discard_worker();
  }
  measurement.summary = summarize_samples(measurement.samples);
  return measurement;
}

}  // namespace rkt
