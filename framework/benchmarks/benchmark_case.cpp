#include "framework/benchmarks/benchmark_case.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "framework/base/phase_times.h"
#include "framework/baselines/backward_baseline.h"
#include "framework/baselines/compiled_baseline.h"
#include "framework/benchmarks/fresh_values_check.h"
#include "framework/benchmarks/kernel_call_set.h"
#include "framework/cases/correctness_case.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/dims/dim_resolution.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/worker_timing.h"
#include "framework/runtime/device_memory.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/l2_persistence.h"
#include "framework/runtime/torch_bridge.h"
#include "framework/timing/device_lease.h"
#include "framework/timing/device_peaks.h"
#include "rkt/defaults.h"
#include "rkt/torch_kernel.h"

namespace rkt {

std::vector<PreparedCase> prepare_benchmark_input_sets(const KernelSpec& kernel, const TaskSpec& task) {
  std::vector<PreparedCase> sets;
  for (int i = 0; i < defaults::kBenchmarkInputSets; ++i) {
    CaseInputs inputs;
    inputs.dims = task.test_dims(kernel.device());
    inputs.seed = case_seed(task.id() + "/benchmark_" + std::to_string(i));
    inputs.distribution = "benchmark set " + std::to_string(i);
    sets.push_back(prepare_case(kernel, task, inputs));
  }
  // The draw may be queued on any stream (the legacy default stream where no kernel stream is
  // current). Nothing timed may start before it ends: a baseline timed on the kernel's stream,
  // which does not wait for the legacy one, shared the device with the draw's tail (eager fp32,
  // the first baseline timed, ran 35-65% slow on memory-bound KernelBench problems, run 18).
  synchronize_device(kernel.device());
  return sets;
}

namespace {

// [ms] The timed loop's calls, for the fresh-values check; none when the loop's time was refused
// (its median is 0 then).
std::vector<double> loop_samples(const Measurement& measured) {
  if (measured.summary.median <= 0) return {};
  return measured.samples;
}

std::vector<std::unique_ptr<KernelCallSet>> make_call_sets(const KernelSpec& kernel,
                                                           std::vector<PreparedCase> prepared,
                                                           void* stream) {
  std::vector<std::unique_ptr<KernelCallSet>> sets;
  for (PreparedCase& case_inputs : prepared) {
    auto set = std::make_unique<KernelCallSet>();
    set->prepared = std::move(case_inputs);
    std::vector<TensorView> input_views, output_views;
    for (const at::Tensor& input : set->prepared.device_inputs) input_views.push_back(to_view(input));
    if (kernel.returns_tensors()) {
      set->io.inputs = set->prepared.device_inputs;
    } else {
      set->outputs = allocate_poisoned_outputs(set->prepared.signatures, kernel.device());
      for (const at::Tensor& output : set->outputs) output_views.push_back(to_view(output));
    }
    set->call = std::make_unique<KernelCall>(input_views, output_views, stream,
                                             kernel.returns_tensors() ? &set->io : nullptr);
    sets.push_back(std::move(set));
  }
  return sets;
}

// Isolated mode: each set's inputs (shared already) with shared, poisoned outputs.
std::vector<SharedArguments> shared_arguments(const KernelSpec& kernel,
                                              std::vector<std::unique_ptr<KernelCallSet>>& sets) {
  std::vector<SharedArguments> arguments;
  for (auto& set : sets) {
    set->outputs.clear();
    for (const OutputSignature& signature : set->prepared.signatures) {
      set->outputs.push_back(allocate_for_kernel(signature.sizes, signature.dtype, kernel));
      poison_output(set->outputs.back());
    }
    arguments.push_back({set->prepared.device_inputs, set->outputs});
  }
  synchronize_device(kernel.device());
  return arguments;
}

// What a benchmark says of a kernel that set L2 persistence (framework/runtime/l2_persistence.h).
constexpr const char* kL2PersistenceNote =
    "L2 persistence: the kernel set a persisting-L2 carve-out or access policy window; it was "
    "reset before each timed sample, so the cache flush evicted what it kept";

// Before an in-process timed sample, what the worker does before its own: persistence taken
// away, then the flush.
void prepare_sample(const KernelSpec& kernel, void* cuda_stream, bool& persistence_reset) {
  if (kernel.device() == Device::cuda && reset_l2_persistence_if_set(cuda_stream)) {
    persistence_reset = true;
  }
  flush_caches(kernel.device(), cuda_stream);
}

// The timed loop's times were refused (a forged clock, or a machine too loaded to tell): the
// checks of the loop's outputs and the fresh-values check still run, and their failure, which
// needs no time to stand, is the verdict that counts.
struct LoopTimeRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Times the kernel in its worker; the times stand only if the judge's clock explains them.
// `cross_check` gets what the cross-check saw, and a note when the kernel set L2 persistence.
Measurement time_in_worker(const KernelSpec& kernel, std::vector<std::unique_ptr<KernelCallSet>>& sets,
                           std::string& cross_check, const std::string& calibration_cache = "") {
  ScopedPhase phase(Phase::timing);
  TimingCrossCheck check;
  Measurement measured = measure_in_worker(kernel, shared_arguments(kernel, sets),
                                           default_timing_options(kernel.device()), check,
                                           calibration_cache);
  cross_check = check.describe();
  if (check.l2_persistence_reset) measured.stop_reason += "; " + std::string(kL2PersistenceNote);
  if (check.forged()) {
    throw LoopTimeRefused("timing refused: the worker's times are not what the judge's clock "
                             "measured (" + cross_check + ")");
  }
  if (check.load_dominated()) {
    throw LoopTimeRefused(
        "timing refused: most requests were explained only by the machine's "
        "load, which would hide a forged clock as well; run it on a quieter "
        "machine (" +
        cross_check + ")");
  }
  return measured;
}

// The timed loop over `sets`, in the kernel's worker or in process. A time the cross-check
// refuses leaves `loop_refusal` saying why (the sets' outputs are still the last timed calls',
// for the checks that follow); `cross_check` gets what the cross-check saw.
Measurement time_the_loop(const KernelSpec& kernel,
                          std::vector<std::unique_ptr<KernelCallSet>>& sets,
                          KernelStreamScope& stream_scope, std::string& cross_check,
                          std::string& loop_refusal, const std::string& calibration_cache = "") {
  if (runs_in_worker(kernel)) {
    try {
      return time_in_worker(kernel, sets, cross_check, calibration_cache);
    } catch (const LoopTimeRefused& refused) {
      loop_refusal = refused.what();
      return {};
    }
  }
  bool persistence_reset = false;
  Measurement measured = measure(
      kernel.device(), default_timing_options(kernel.device()),
      [&](int) { prepare_sample(kernel, stream_scope.stream(), persistence_reset); },
      [&](int i) { call_kernel(kernel, *sets[i % sets.size()]); });
  if (persistence_reset) measured.stop_reason += "; " + std::string(kL2PersistenceNote);
  return measured;
}

// Sets LibTorch's float32 precision for a baseline; restores strict fp32 when destroyed.
class BaselinePrecision {
 public:
  explicit BaselinePrecision(const std::string& baseline) {
    const bool tf32 = baseline == "eager_tf32";
    at::globalContext().setFloat32MatmulPrecision(tf32 ? "high" : "highest");
    at::globalContext().setAllowTF32CuDNN(tf32);
  }
  ~BaselinePrecision() {
    at::globalContext().setFloat32MatmulPrecision("highest");
    at::globalContext().setAllowTF32CuDNN(false);
  }
};

// The attention tasks' eager baseline is at::scaled_dot_product_attention, whose backend ATen
// picks per device, dtype and shape: named beside what the baseline measures ("", other tasks).
std::string attention_backend(const TaskSpec& task, const std::string& baseline,
                              const std::vector<PreparedCase>& sets) {
  const std::string& forward = task.forward_task_id().empty() ? task.id() : task.forward_task_id();
  if (baseline == "compiled" || forward.rfind("attention", 0) != 0 || sets.empty()) return "";
  const std::vector<at::Tensor>& in = sets[0].device_inputs;
  if (in.size() < 3 || in[0].dim() != 4 || in[1].dim() != 4) return "";
  const bool causal = forward.find("causal") != std::string::npos;
  try {
    const std::int64_t choice = at::_fused_sdp_choice(in[0], in[1], in[2], {}, 0.0, causal,
                                                      std::nullopt, in[0].size(1) != in[1].size(1));
    static const char* const kBackends[] = {"math", "flash_attention", "efficient_attention",
                                            "cudnn_attention", "overrideable"};
    const char* name = choice >= 0 && choice < 5 ? kBackends[choice] : "none";
    return std::string(" (scaled_dot_product_attention backend: ") + name + ")";
  } catch (const std::exception&) {
    return " (scaled_dot_product_attention backend: not determined)";
  }
}

using ReferenceRunner = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

// How a baseline computes the task's outputs, or "" runner with `absent_reason` set. The compiled
// baseline is checked against the C++ reference (in float64, fp32 tolerance) on the first input
// set before it is timed: a Python twin that computes something else is not a baseline.
ReferenceRunner baseline_runner(const TaskSpec& task, Device device, const std::string& baseline,
                                const std::vector<PreparedCase>& sets,
                                std::string& absent_reason) {
  if (baseline == "eager_tf32" && device == Device::cpu) {
    absent_reason = "TF32 is a CUDA setting: on the CPU this baseline is eager_fp32";
    return {};
  }
  if (baseline != "compiled") {
    if (task.forward_task_id().empty()) return task.reference();
    std::vector<std::vector<at::Tensor>> input_sets;
    for (const PreparedCase& set : sets) input_sets.push_back(set.device_inputs);
    return backward_only_runner(task, input_sets);
  }
  std::shared_ptr<CompiledReference> compiled = load_compiled_reference(task, device, absent_reason);
  if (!compiled) return {};
  const ReferenceRunner runner = [compiled](const std::vector<at::Tensor>& inputs) {
    return compiled->run(inputs);
  };
  const KernelSpec twin(task.id(), "compiled_baseline", {}, device, "", 0);
  std::vector<at::Tensor> outputs;
  try {
    outputs = runner(sets.at(0).device_inputs);
  } catch (const std::exception& error) {
    absent_reason = "the compiled package threw: " + describe_exception(error);
    return {};
  }
  const CaseOutcome check = judge_outputs(twin, task, "compiled baseline (Python twin)",
                                          sets[0].drawn_inputs, sets[0].signatures, outputs);
  if (check.status != CaseStatus::passed) {
    absent_reason = "the Python twin disagrees with the C++ reference: " + check.message;
    return {};
  }
  return runner;
}

Measurement time_reference(const ReferenceRunner& runner, Device device,
                           const std::vector<PreparedCase>& sets) {
  TimingOptions options = default_timing_options(device);
  options.phase = Phase::baselines;
  return measure(
      device, options, [&](int) { flush_caches(device, current_cuda_stream(device)); },
      [&](int i) { runner(sets[i % sets.size()].device_inputs); });
}

}  // namespace

const std::vector<std::string>& baseline_names() {
  static const std::vector<std::string> names = {"eager_fp32", "eager_tf32", "compiled"};
  return names;
}

// Benchmarks run on the primary config of a task (TaskSpec::configured(0)).
Measurement time_kernel(const KernelSpec& kernel, const TaskSpec& declared_task) {
  const TaskSpec& task = declared_task.configured(0);
  const ExclusiveDeviceLease lease(kernel.device());
  KernelStreamScope stream_scope(kernel.device());
  auto sets = make_call_sets(kernel, prepare_benchmark_input_sets(kernel, task), stream_scope.stream());
  std::string cross_check, loop_refusal;
  const Measurement measured = time_the_loop(kernel, sets, stream_scope, cross_check, loop_refusal);
  // A time stands only for a kernel that computes when the values change (fresh_values_check.h).
  const FreshValuesCheck fresh =
      check_fresh_values(kernel, task, sets, stream_scope, loop_samples(measured));
  if (fresh.failures > 0) throw std::runtime_error("timing refused: " + fresh.message);
  if (fresh.loop_time_refused) throw std::runtime_error("timing refused: " + fresh.refusal);
  if (fresh.refused_for_load) throw std::runtime_error(fresh.refusal);
  if (!loop_refusal.empty()) throw std::runtime_error(loop_refusal);
  return measured;
}

Measurement time_baseline(const TaskSpec& declared_task, Device device,
                          const std::string& baseline, std::string& absent_reason) {
  const TaskSpec& task = declared_task.configured(0);
  const ExclusiveDeviceLease lease(device);
  // Any registered kernel of the task would do to prepare inputs; build a stand-in spec.
  KernelSpec stand_in(task.id(), "baseline", {}, device, "", 0);
  const std::vector<PreparedCase> sets = prepare_benchmark_input_sets(stand_in, task);
  KernelStreamScope stream_scope(device);
  BaselinePrecision precision(baseline);
  const ReferenceRunner runner = baseline_runner(task, device, baseline, sets, absent_reason);
  if (!runner) return {};
  return time_reference(runner, device, sets);
}

std::vector<BaselineMeasurement> measure_baselines(const TaskSpec& declared_task, Device device) {
  const TaskSpec& task = declared_task.configured(0);
  const ExclusiveDeviceLease lease(device);
  const ScopedPhase phase(Phase::baselines);
  KernelSpec stand_in(task.id(), "baseline", {}, device, "", 0);
  const std::vector<PreparedCase> sets = prepare_benchmark_input_sets(stand_in, task);
  KernelStreamScope stream_scope(device);
  std::vector<BaselineMeasurement> measurements;
  std::vector<ReferenceRunner> runners;
  for (const std::string& name : baseline_names()) {
    BaselineMeasurement measurement;
    measurement.name = name;
    measurement.measures = baseline_measures(task, name) + attention_backend(task, name, sets);
    BaselinePrecision precision(name);
    runners.push_back(baseline_runner(task, device, name, sets, measurement.absent_reason));
    measurements.push_back(std::move(measurement));
  }
  // Every baseline runs once on every input set before the first is timed, so that none is
  // timed while the device, its allocator or its libraries are still settling after the draw
  // (run 18: eager fp32, timed first, was up to 35% slower than KernelBench's median for
  // memory-bound operators whose TF32 medians, timed second, agreed).
  for (std::size_t i = 0; i < runners.size(); ++i) {
    if (!runners[i]) continue;
    BaselinePrecision precision(measurements[i].name);
    for (const PreparedCase& set : sets) runners[i](set.device_inputs);
  }
  stream_scope.synchronize();
  for (std::size_t i = 0; i < runners.size(); ++i) {
    if (!runners[i]) continue;
    BaselinePrecision precision(measurements[i].name);
    measurements[i].timing = time_reference(runners[i], device, sets);
    measurements[i].peak_memory_bytes =
        peak_bytes_added(device, [&] { runners[i](sets[0].device_inputs); });
  }
  return measurements;
}

namespace {

// The precision whose matrix rate bounds the kernel: its claim, or the 16-bit format of the
// task's floating inputs when that is lower.
Precision roofline_class(const KernelSpec& kernel, const TaskSpec& task) {
  const Precision stored = task_storage_class(task);
  return stored != Precision::fp32 ? stored : kernel.precision();
}

}  // namespace

BenchmarkRecord benchmark_kernel(const KernelSpec& kernel, const TaskSpec& declared_task,
                                 const std::string& peaks_cache,
                                 const std::string& calibration_cache) {
  const TaskSpec& task = declared_task.configured(0);
  BenchmarkRecord record;
  record.task = task.id();
  record.kernel = kernel.kernel_id();
  record.device = to_string(kernel.device());
  record.precision = to_string(kernel.precision());
  const Dims& dims = task.test_dims(kernel.device());
  record.dims = format_dims(dims);
  if (task.config_name() != "default") {
    record.dims = task.config_name() + ": " + record.dims;
  }
  if (auto skipped = skip_if_device_missing(kernel)) {
    record.problem = skipped->message;
    return record;
  }
  try {
    const ExclusiveDeviceLease lease(kernel.device());
    KernelStreamScope stream_scope(kernel.device());
    auto sets = make_call_sets(kernel, prepare_benchmark_input_sets(kernel, task), stream_scope.stream());

    // Memory: one call on set 0, with its outputs allocated inside the measured region.
    if (runs_in_worker(kernel)) {
      KernelCallSet& set = *sets[0];
      record.peak_memory_bytes =
          invoke_in_worker(kernel, set.prepared.device_inputs, set.prepared.signatures).peak_memory_bytes;
    } else {
      KernelCallSet& set = *sets[0];
      record.peak_memory_bytes = peak_bytes_added(kernel.device(), [&] {
        if (!kernel.returns_tensors()) {
          std::vector<at::Tensor> outputs =
              allocate_poisoned_outputs(set.prepared.signatures, kernel.device());
          std::vector<TensorView> input_views, output_views;
          for (const at::Tensor& input : set.prepared.device_inputs) input_views.push_back(to_view(input));
          for (const at::Tensor& output : outputs) output_views.push_back(to_view(output));
          KernelCall call(input_views, output_views, stream_scope.stream());
          kernel.function()(call);
        } else {
          call_kernel(kernel, set);
        }
        stream_scope.synchronize();
      });
    }

    std::string cross_check, loop_refusal;
    const Measurement kernel_time =
        time_the_loop(kernel, sets, stream_scope, cross_check, loop_refusal, calibration_cache);
    stream_scope.synchronize();
    record.time = kernel_time.summary;
    record.stop_reason = kernel_time.stop_reason;
    if (!cross_check.empty()) record.stop_reason += "; timing cross-check: " + cross_check;

    // Spot checks: the outputs each checked set holds are those of its last timed call.
    std::mt19937_64 pick(case_seed(task.id() + "/spot_checks"));
    std::vector<int> order(sets.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::shuffle(order.begin(), order.end(), pick);
    for (int s = 0; s < std::min<int>(defaults::kBenchmarkSpotChecks, order.size()); ++s) {
      KernelCallSet& set = *sets[order[s]];
      const CaseOutcome outcome =
          judge_outputs(kernel, task, kernel.full_id() + " timed call on input set " +
                                          std::to_string(order[s]),
                        set.prepared.drawn_inputs, set.prepared.signatures, set.outputs);
      ++record.spot_checks;
      if (outcome.status == CaseStatus::failed) {
        ++record.spot_check_failures;
        record.spot_check_message = outcome.message;
      }
    }
    // Then new values in the same buffers: the loop's outputs can be right without the kernel
    // computing them (fresh_values_check.h). Spot checks too, in the record's counts.
    // A reuse the outputs hide shows in the time of the first calls on new values: then the
    // loop's time is the reuse's, and it fails the benchmark as a wrong output would.
    const FreshValuesCheck fresh =
        check_fresh_values(kernel, task, sets, stream_scope, loop_samples(kernel_time));
    record.spot_checks += fresh.checked;
    record.spot_check_failures += fresh.failures;
    if (fresh.failures > 0) record.spot_check_message = fresh.message;
    if (fresh.loop_time_refused) {
      ++record.spot_check_failures;
      record.spot_check_message = fresh.refusal;
    }
    if (fresh.refused_for_load) {  // as a loop refused for the load: the checks stand
      record.problem = "benchmark failed: " + fresh.refusal;
      return record;
    }
    if (!loop_refusal.empty()) {  // the checks above stand; the time does not
      record.problem = "benchmark failed: " + loop_refusal;
      return record;
    }

    // Floor and roofline, at the matrix rate of the kernel's claim or, on a task stored in bf16
    // or fp16, of its inputs' format (a bf16 GEMM's peak is the bf16 tensor-core rate; its fp32
    // accumulation is what those tensor cores do).
    const DevicePeaks& peaks = measured_peaks(kernel.device(), peaks_cache);
    const double bytes = task.minimal_bytes(dims), flops = task.flop_count(dims);
    const Precision rate_class = roofline_class(kernel, task);
    record.floor_ms = physical_floor_ms(peaks, rate_class, bytes, flops);
    record.impossible = record.time.median < defaults::kImpossibleFloorFraction * record.floor_ms;
    const double seconds = record.time.median / 1e3;
    if (seconds > 0) {
      record.achieved_bytes_per_second = bytes / seconds;
      record.achieved_flops_per_second = flops / seconds;
      record.bandwidth_fraction = record.achieved_bytes_per_second / peaks.copy_bytes_per_second;
      record.flops_fraction =
          record.achieved_flops_per_second / peak_flops_per_second(peaks, rate_class);
    }

    // Baselines on the same input sets.
    const ScopedPhase baselines_phase(Phase::baselines);
    std::vector<PreparedCase> baseline_sets;
    for (const auto& set : sets) baseline_sets.push_back(set->prepared);
    double strongest_median = 0;
    for (const std::string& name : baseline_names()) {
      BaselineResult baseline;
      baseline.name = name;
      baseline.measures = baseline_measures(task, name) + attention_backend(task, name, baseline_sets);
      BaselinePrecision precision(name);
      const ReferenceRunner runner =
          baseline_runner(task, kernel.device(), name, baseline_sets, baseline.absent_reason);
      if (runner) {
        const Measurement measured = time_reference(runner, kernel.device(), baseline_sets);
        baseline.available = true;
        baseline.time = measured.summary;
        baseline.peak_memory_bytes = peak_bytes_added(kernel.device(), [&] {
          runner(baseline_sets[0].device_inputs);
        });
        baseline.speedup = bootstrap_median_ratio(measured.samples, kernel_time.samples,
                                                  defaults::kBootstrapResamples,
                                                  defaults::kSpeedupConfidence,
                                                  case_seed(task.id() + "/bootstrap/" + name));
        if (baseline.peak_memory_bytes > 0 && record.peak_memory_bytes > 0) {
          baseline.memory_efficiency = baseline.peak_memory_bytes / record.peak_memory_bytes;
        }
        if (record.strongest_baseline.empty() || measured.summary.median < strongest_median) {
          record.strongest_baseline = name;
          strongest_median = measured.summary.median;
          record.speedup_vs_strongest = baseline.speedup;
        }
      }
      record.baselines.push_back(baseline);
    }
    record.measured = true;
  } catch (const std::exception& error) {
    record.problem = "benchmark failed: " + describe_exception(error);
  }
  return record;
}

}  // namespace rkt
