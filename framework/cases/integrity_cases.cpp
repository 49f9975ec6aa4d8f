#include "framework/cases/integrity_cases.h"

#include <ATen/ATen.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>
#include <thread>

#include "framework/cases/correctness_case.h"
#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/redzones.h"
#include "framework/isolation/worker_process.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "framework/runtime/operator_observer.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// Thrown by a gate's body to fail the case with a message naming the class of trick.
struct GateFailure {
  std::string message;
};

CaseInputs gate_inputs(const KernelSpec& kernel, const TaskSpec& task, const std::string& key) {
  CaseInputs inputs;
  inputs.dims = task.test_dims(kernel.device());
  inputs.seed = case_seed(task.id() + "/integrity_" + key);
  inputs.distribution = "integrity " + key;
  return inputs;
}

// Bit-for-bit equality (NaN payloads and -0 included).
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const auto as_integers = [](const at::Tensor& t) {
    switch (t.element_size()) {
      case 8: return t.contiguous().view(at::kLong);
      case 4: return t.contiguous().view(at::kInt);
      case 2: return t.contiguous().view(at::kShort);
      default: return t.contiguous().view(at::kByte);
    }
  };
  return at::equal(as_integers(a), as_integers(b));
}

std::int64_t count_changed(const at::Tensor& before, const at::Tensor& after) {
  const at::Tensor a = before.to(at::kDouble), b = after.to(at::kDouble);
  const at::Tensor same = (a == b) | (at::isnan(a) & at::isnan(b));
  return same.numel() - same.sum().item<std::int64_t>();
}

std::vector<at::Tensor> clones(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& tensor : tensors) copies.push_back(tensor.clone());
  return copies;
}

void require_pass(const CaseOutcome& outcome, const std::string& trick) {
  if (outcome.status == CaseStatus::failed) throw GateFailure{trick + ": " + outcome.message};
  if (outcome.status == CaseStatus::dropped) throw outcome;
}

// Gate 1 (and 2): the expected output is planted in freed memory first, as the reference of a
// naive harness would leave it; the kernel must still produce it itself.
std::string recycled_output(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "recycled_output");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  {
    KernelStreamScope stream_scope(kernel.device());  // The stream the kernel will get.
    std::vector<at::Tensor> planted = task.reference()(clones(prepared.device_inputs));
    stream_scope.synchronize();
  }  // The planted outputs are freed here; invoke_kernel scrubs freed memory before the call.
  const KernelRun run = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
  require_pass(judge_outputs(kernel, task, kernel.full_id() + ", " + describe_case(inputs),
                             prepared.drawn_inputs, prepared.signatures, run.outputs),
               "unwritten or recycled output (the expected result was left in freed memory and "
               "freed memory was scrubbed to NaN before the call)");
  return "outputs were computed, not recycled from freed memory";
}

// Gate 3: inputs compared bit for bit before and after the call.
std::string input_mutation(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "input_mutation");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  const std::vector<at::Tensor> before = clones(prepared.device_inputs);
  invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (!same_bits(before[i], prepared.device_inputs[i])) {
      throw GateFailure{"input mutation: the kernel modified input '" + task.inputs()[i].name +
                        "' (" + std::to_string(count_changed(before[i], prepared.device_inputs[i])) +
                        " of " + std::to_string(before[i].numel()) +
                        " elements changed); inputs are read-only"};
    }
  }
  return "every input is bit-identical after the call";
}

// Gate 4: values change under the same pointers, the same values arrive in new buffers, and
// calls repeat; every result must follow the values.
std::string replay(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs first_inputs = gate_inputs(kernel, task, "replay_first");
  CaseInputs second_inputs = gate_inputs(kernel, task, "replay_second");
  PreparedCase first = prepare_case(kernel, task, first_inputs);
  const PreparedCase second = prepare_case(kernel, task, second_inputs);
  const auto check = [&](const std::vector<at::Tensor>& buffers, const PreparedCase& values,
                         const CaseInputs& inputs, const std::string& call) {
    const KernelRun run = invoke_kernel(kernel, buffers, values.signatures);
    require_pass(judge_outputs(kernel, task,
                               kernel.full_id() + ", " + call + ", " + describe_case(inputs),
                               values.drawn_inputs, values.signatures, run.outputs),
                 "replay or memoization (" + call + ")");
  };
  check(first.device_inputs, first, first_inputs, "call 1");
  for (std::size_t i = 0; i < first.device_inputs.size(); ++i) {
    first.device_inputs[i].copy_(second.device_inputs[i]);  // Same buffers, new values.
  }
  check(first.device_inputs, second, second_inputs,
        "call 2: same input buffers, values changed in place");
  const std::vector<at::Tensor> fresh = clones(second.device_inputs);
  for (int call = 3; call <= 5; ++call) {
    check(fresh, second, second_inputs,
          "call " + std::to_string(call) + ": new buffers holding the call-2 values");
  }
  // Calls 6-8 (kReplaySingleElementCalls): one element of each input changed in place per call, at a random position, where
  // a cheap fingerprint of the inputs (sampled elements, a partial checksum) would not look. A
  // cache keyed on k of n elements escapes a call with probability k/n, all three only with
  // (k/n)^3 (16 of 2400 sampled: 3e-7).
  PreparedCase changed = second;
  changed.drawn_inputs = clones(second.drawn_inputs);
  at::Generator positions = at::detail::createCPUGenerator(case_seed(task.id() + "/replay_sixth"));
  for (int call = 6; call < 6 + kReplaySingleElementCalls; ++call) {
    for (std::size_t i = 0; i < changed.drawn_inputs.size(); ++i) {
      at::Tensor& input = changed.drawn_inputs[i];
      if (!task.inputs()[i].is_scaled() || !input.is_floating_point() || input.numel() == 0) continue;
      const at::Tensor where =
          at::randint(input.numel(), {1}, positions, at::kLong).to(input.device());
      at::Tensor flat = input.view(-1);
      flat.index_put_({where}, flat.index({where}) * -2.0 + 0.5);
      impose_structure(task.inputs()[i].values, input);  // symmetric stays symmetric, etc.
      first.device_inputs[i].copy_(input);
    }
    check(first.device_inputs, changed, second_inputs,
          "call " + std::to_string(call) + ": one element of each input changed in place");
  }
  return "8 calls followed their inputs (values changed in place, new buffers, repeated calls, "
         "single elements changed)";
}

// Gate 5: operators the kernel dispatched while it ran.
std::string borrowed_computation(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "borrowed_computation");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  const KernelRun run = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
  const std::vector<std::string> undeclared =
      undeclared_compute_operators(run.operators, kernel.allowed_operators());
  if (!undeclared.empty()) {
    std::ostringstream message;
    message << "borrowed computation: the kernel dispatched ATen compute operators it did not "
               "declare:";
    for (const std::string& name : undeclared) message << " " << name;
    message << ". A kernel must compute its result itself; declare intended operators with "
               ".allow_operators({...}) so that reports show them";
    throw GateFailure{message.str()};
  }
  std::ostringstream summary;
  summary << run.operators.size() << " distinct ATen operators observed, none undeclared";
  return summary.str();
}

// Gate 6 on CUDA, on the GPU's clock: kEscapedWorkTimedCalls traced calls, each of whose work off
// the given stream must end within kEscapedWorkOverrunMilliseconds of the call's end on it
// (framework/runtime/off_stream_work_trace.h). Returns the summary, or sets `untraced` to why the
// trace could not be read (the caller then uses the host clock).
std::string escaped_work_on_the_gpu_clock(const KernelSpec& kernel, const PreparedCase& prepared,
                                          std::string& untraced) {
  OffStreamOverrun worst;
  for (int call = 0; call < kEscapedWorkTimedCalls; ++call) {
    KernelRun run;
    try {
      run = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures, {},
                          /*trace_off_stream_work=*/true);
    } catch (const OutputsNotFinalAtReturn& not_final) {
      throw GateFailure{std::string("escaped work: ") + not_final.what()};
    }
    synchronize_kernel_device(kernel);
    if (!run.off_stream) {
      untraced = run.off_stream_untraced.empty() ? "no trace came back" : run.off_stream_untraced;
      return "";
    }
    if (std::isinf(run.off_stream->milliseconds)) {
      throw GateFailure{"escaped work: the trace of the call's device work was cut: " +
                        run.off_stream->latest};
    }
    if (run.off_stream->milliseconds > worst.milliseconds) worst = *run.off_stream;
  }
  std::ostringstream message;
  if (worst.milliseconds > kEscapedWorkOverrunMilliseconds) {
    message << "escaped work: " << worst.latest << " ran off the stream it was given and ended "
            << worst.milliseconds << " ms after the call had finished on that stream (GPU clock, "
            << "CUPTI activity records; allowed: " << kEscapedWorkOverrunMilliseconds
            << " ms, the worst of " << kEscapedWorkTimedCalls
            << " calls): work ran outside the timed stream";
    throw GateFailure{message.str()};
  }
  message << "outputs final at return; no work off the stream outlasted the call in "
          << kEscapedWorkTimedCalls << " traced calls (GPU clock; the most: " << worst.milliseconds
          << " ms)";
  return message.str();
}

// Gate 6 on CUDA without a trace: the time to finish everything the call started, on the whole
// device, against its time on the stream it was given, on the host's clock. Work launched
// elsewhere shows as the difference, on every call. A loaded CPU or a process sharing the GPU
// delays some calls only, so the gate judges the best call, timing more
// (kEscapedWorkMostTimedCalls) while none is within the bound.
std::string escaped_work_on_the_host_clock(const KernelSpec& kernel, const PreparedCase& prepared) {
  double device_ms = 0, stream_ms = 0, allowed = 0;
  int calls = 0;
  while (calls < kEscapedWorkMostTimedCalls) {
    if (calls >= kEscapedWorkTimedCalls) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kEscapedWorkRetryPauseMilliseconds));
    }
    KernelRun timed;
    try {
      timed = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
    } catch (const OutputsNotFinalAtReturn& not_final) {
      throw GateFailure{std::string("escaped work: ") + not_final.what()};
    }
    synchronize_kernel_device(kernel);
    // In a worker the synchronisation is timed there: the judge's clock would add the round trip.
    const double device = timed.device_milliseconds >= 0
                              ? timed.device_milliseconds
                              : std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - timed.call_start)
                                    .count();
    const double limit =
        kEscapedWorkFactor * timed.stream_milliseconds + kEscapedWorkSlackMilliseconds;
    if (calls == 0 || device - limit < device_ms - allowed) {
      device_ms = device;
      stream_ms = timed.stream_milliseconds;
      allowed = limit;
    }
    ++calls;
    if (device_ms <= allowed) break;
  }
  if (device_ms > allowed) {
    std::ostringstream message;
    message << "escaped work: the call took " << device_ms
            << " ms to finish on the device but only " << stream_ms
            << " ms on the stream it was given (allowed: " << allowed << " ms; the best of "
            << calls << " calls): work ran outside the timed stream";
    throw GateFailure{message.str()};
  }
  std::ostringstream summary;
  summary << "outputs final at return; " << stream_ms << " ms on the stream, " << device_ms
          << " ms to a device-wide synchronisation (the best of " << calls << " calls)";
  return summary.str();
}

// Gate 6: the outputs are final when the call returns, and no work runs off the given stream.
std::string escaped_work(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "escaped_work");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  const std::string where = kernel.full_id() + ", " + describe_case(inputs);

  KernelRun run;
  try {
    run = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
  } catch (const OutputsNotFinalAtReturn& not_final) {  // Hashed on the GPU at return (CUDA).
    throw GateFailure{std::string("escaped work: ") + not_final.what()};
  }
  const std::vector<at::Tensor> at_return = clones(run.outputs);  // Read through the stream.
  if (kernel.device() == Device::cpu) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kLateWriteWaitMilliseconds));
  }
  synchronize_kernel_device(kernel);
  for (std::size_t i = 0; i < at_return.size(); ++i) {
    if (!same_bits(at_return[i], run.outputs[i])) {
      throw GateFailure{
          "escaped work: output '" + task.output_names()[i] + "' changed after the kernel" +
          (kernel.device() == Device::cuda ? "'s stream was synchronised (work ran on another "
                                             "stream or was deferred)"
                                           : " returned (work continued on another thread)") +
          ": " + std::to_string(count_changed(at_return[i], run.outputs[i])) + " of " +
          std::to_string(at_return[i].numel()) + " elements"};
    }
  }
  require_pass(judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures,
                             at_return),
               "escaped work (outputs read through the kernel's stream when it returned)");

  if (kernel.device() == Device::cuda) {
    std::string untraced = off_stream_tracing_unavailable_reason();
    if (untraced.empty()) {
      const std::string traced = escaped_work_on_the_gpu_clock(kernel, prepared, untraced);
      if (untraced.empty()) return traced;
    }
    return escaped_work_on_the_host_clock(kernel, prepared) + " (host clock: the device work was " +
           "not traced: " + untraced + ")";
  }
  return "outputs final at return and unchanged " + std::to_string(kLateWriteWaitMilliseconds) +
         " ms later";
}

// The class two calls' outputs must agree within: the kernel's, or the output's storage format
// when that is coarser. An honest kernel that sums with atomics in a varying order stores a bf16 or
// fp16 output a unit in the last place apart from call to call, far beyond float32's tolerance.
Precision agreement_precision(Precision claimed, c10::ScalarType output_dtype) {
  const bool strict = claimed == Precision::fp32 || claimed == Precision::tf32;
  const Precision stored = storage_class(output_dtype);
  return strict && stored != Precision::fp32 ? stored : claimed;
}

// Gate 9: repeated calls on the same inputs agree within the kernel's tolerance (on an output
// stored in bf16 or fp16, that format's: agreement_precision).
std::string determinism(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "determinism");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  std::vector<std::vector<at::Tensor>> results;
  for (int call = 0; call < kDeterminismRuns; ++call) {
    results.push_back(invoke_kernel(kernel, prepared.device_inputs, prepared.signatures).outputs);
  }
  require_pass(judge_outputs(kernel, task, kernel.full_id() + ", " + describe_case(inputs),
                             prepared.drawn_inputs, prepared.signatures, results[0]),
               "nondeterminism (call 1)");
  bool bitwise = true;
  for (int call = 1; call < kDeterminismRuns; ++call) {
    for (std::size_t i = 0; i < results[call].size(); ++i) {
      bitwise = bitwise && same_bits(results[0][i], results[call][i]);
      const OutputCheck agreement =
          check_output(results[call][i], results[0][i].to(at::kDouble), prepared.signatures[i].dtype,
                       to_torch_device(kernel.device()),
                       task.tolerance(agreement_precision(kernel.precision(), prepared.signatures[i].dtype)));
      if (!agreement.passed) {
        throw GateFailure{"nondeterminism: call " + std::to_string(call + 1) +
                          " on the same inputs disagrees with call 1 on output '" +
                          task.output_names()[i] + "': " + agreement.message};
      }
    }
  }
  return std::to_string(kDeterminismRuns) + " calls agree" +
         (bitwise ? " bit for bit" : " within tolerance (not bit for bit)");
}

// A read past an input's end or a misaligned access ends a CPU worker with one of these.
bool fault_signal(const WorkerFailure& failure) {
  return failure.signal_number == SIGSEGV || failure.signal_number == SIGBUS;
}

std::string signal_name(int signal_number) {
  return signal_number == SIGBUS ? "SIGBUS" : signal_number == SIGSEGV ? "SIGSEGV" : std::to_string(signal_number);
}

// Copies of `drawn` in the kernel's buffers, input i placed as `placement_of(i)` says.
std::vector<at::Tensor> placed_inputs(const KernelSpec& kernel, const std::vector<at::Tensor>& drawn,
                                      const std::function<BufferPlacement(std::size_t)>& placement_of) {
  std::vector<at::Tensor> placed;
  for (std::size_t i = 0; i < drawn.size(); ++i) placed.push_back(copy_for_kernel(drawn[i], kernel, placement_of(i)));
  return placed;
}

// Gate 7: nothing outside a buffer is touched. Every call of every case checks the redzones
// around its buffers (invoke_kernel); this case also places each input of a CPU kernel so that
// it ends where an inaccessible page begins, so a read past its end faults, and names the input.
std::string out_of_bounds(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "out_of_bounds");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  const std::string where = kernel.full_id() + ", " + describe_case(inputs);
  const std::string redzones = std::to_string(prepared.device_inputs.size() + prepared.signatures.size()) +
                               " buffers' redzones intact (" + std::to_string(defaults::kRedzoneBytes) +
                               " bytes on each side)";
  {
    const KernelRun run = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures);
    require_pass(judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures, run.outputs),
                 "out of bounds (buffers with redzones)");
  }
  if (kernel.device() != Device::cpu) {
    return redzones + "; reads past an end are the sanitizer case's to find on a GPU";
  }
  const auto at_page_end = [&](std::size_t i) {
    return BufferPlacement{0, true,
                           std::max<std::int64_t>(kernel.alignment_bytes(),
                                                  static_cast<std::int64_t>(prepared.drawn_inputs[i].element_size()))};
  };
  try {
    const KernelRun run = invoke_kernel(
        kernel, placed_inputs(kernel, prepared.drawn_inputs, at_page_end), prepared.signatures);
    require_pass(judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures, run.outputs),
                 "out of bounds (each input ending where an inaccessible page begins)");
  } catch (const WorkerFailure& failure) {
    if (!fault_signal(failure)) throw;
    // Which input: one at a time at a page's end, the others as usual.
    for (std::size_t suspect = 0; suspect < prepared.drawn_inputs.size(); ++suspect) {
      try {
        invoke_kernel(kernel,
                      placed_inputs(kernel, prepared.drawn_inputs,
                                    [&](std::size_t i) { return i == suspect ? at_page_end(i) : BufferPlacement{}; }),
                      prepared.signatures);
      } catch (const WorkerFailure& again) {
        if (!fault_signal(again)) throw;
        throw GateFailure{"out-of-bounds read past input '" + task.inputs()[suspect].name +
                          "': the kernel crashed (" + signal_name(again.signal_number) + ") when '" +
                          task.inputs()[suspect].name +
                          "' ended where an inaccessible page begins, and ran when it did not (" + where +
                          "); it reads beyond the input's last element"};
      }
    }
    throw GateFailure{"out-of-bounds read: the kernel crashed (" + signal_name(failure.signal_number) +
                      ") when its inputs ended where inaccessible pages begin, but with no single input "
                      "placed so (" + where + ")"};
  }
  return redzones + "; reads stay inside every input (each ended where an inaccessible page begins)";
}

// Gate 8: buffers whose first element is offset from any larger alignment: by one element, or
// by exactly the alignment the kernel declared (requires_alignment).
std::string misaligned_pointers(const KernelSpec& kernel, const TaskSpec& task) {
  const CaseInputs inputs = gate_inputs(kernel, task, "misaligned_pointers");
  const PreparedCase prepared = prepare_case(kernel, task, inputs);
  const std::int64_t declared = kernel.alignment_bytes();
  const auto offset_for = [&](std::int64_t element_bytes) { return declared > 0 ? declared : element_bytes; };
  const std::int64_t output_offset =
      offset_for(prepared.signatures.empty() ? 1 : static_cast<std::int64_t>(c10::elementSize(prepared.signatures[0].dtype)));
  std::ostringstream placement;
  placement << "every buffer's first element offset by "
            << (declared > 0 ? std::to_string(declared) + " bytes (the declared alignment)"
                             : std::string("one element (") + std::to_string(output_offset) + " bytes for the first output)")
            << " from any larger alignment";
  const std::string where = kernel.full_id() + ", " + describe_case(inputs) + ", " + placement.str();
  const std::string advice =
      declared > 0 ? "" : "; a kernel that needs aligned buffers declares it with .requires_alignment(bytes)";
  try {
    const KernelRun run = invoke_kernel(
        kernel,
        placed_inputs(kernel, prepared.drawn_inputs,
                      [&](std::size_t i) {
                        return BufferPlacement{offset_for(static_cast<std::int64_t>(prepared.drawn_inputs[i].element_size()))};
                      }),
        prepared.signatures, BufferPlacement{output_offset});
    require_pass(judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures, run.outputs),
                 "misaligned pointers" + advice);
  } catch (const WorkerFailure& failure) {
    throw GateFailure{"misaligned pointers: the kernel failed with " + placement.str() + ": " + failure.what() + advice};
  } catch (const OutOfBoundsWrite&) {
    throw;
  } catch (const std::runtime_error& error) {
    throw GateFailure{"misaligned pointers: the kernel failed with " + placement.str() + ": " +
                      describe_exception(error) + advice};
  }
  return placement.str() + ": outputs correct";
}

}  // namespace

CaseOutcome run_integrity_case(const KernelSpec& kernel, const TaskSpec& task, IntegrityGate gate) {
  const std::string name = kernel.full_id() + " integrity " + to_string(gate);
  const auto waived = kernel.waived_gates().find(gate);
  if (waived != kernel.waived_gates().end()) {
    return {CaseStatus::skipped, name + ": gate waived by the kernel: " + waived->second};
  }
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  try {
    std::string summary;
    switch (gate) {
      case IntegrityGate::recycled_output: summary = recycled_output(kernel, task); break;
      case IntegrityGate::input_mutation: summary = input_mutation(kernel, task); break;
      case IntegrityGate::replay: summary = replay(kernel, task); break;
      case IntegrityGate::borrowed_computation: summary = borrowed_computation(kernel, task); break;
      case IntegrityGate::escaped_work: summary = escaped_work(kernel, task); break;
      case IntegrityGate::determinism: summary = determinism(kernel, task); break;
      case IntegrityGate::out_of_bounds: summary = out_of_bounds(kernel, task); break;
      case IntegrityGate::misaligned_pointers: summary = misaligned_pointers(kernel, task); break;
    }
    return {CaseStatus::passed, name + ": " + summary};
  } catch (const GateFailure& failure) {
    return {CaseStatus::failed, name + ": " + failure.message};
  } catch (const CaseOutcome& dropped) {
    return dropped;
  } catch (const std::exception& error) {
    if (dynamic_cast<const OutOfBoundsWrite*>(&error) != nullptr) {
      return {CaseStatus::failed, name + ": " + error.what()};
    }
    return {CaseStatus::failed, name + ": the kernel or task threw: " + describe_exception(error)};
  }
}

}  // namespace rkt
