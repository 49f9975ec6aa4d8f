#include "framework/isolation/kernel_invocation.h"

#include <ATen/ATen.h>

#include <limits>
#include <stdexcept>

#include "framework/base/phase_times.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/redzones.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/kernel_execution.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/runtime/torch_bridge.h"

namespace rkt {

void poison_output(const at::Tensor& output) {
  if (at::isFloatingType(output.scalar_type())) {
    output.fill_(std::numeric_limits<double>::quiet_NaN());
  } else {
    output.fill_(std::numeric_limits<std::int64_t>::min());
  }
}

std::vector<at::Tensor> allocate_poisoned_outputs(const std::vector<OutputSignature>& signatures,
                                                  Device device, const BufferPlacement& placement) {
  std::vector<at::Tensor> outputs;
  for (const OutputSignature& signature : signatures) {
    outputs.push_back(guarded_empty(signature.sizes, signature.dtype, device, placement));
    poison_output(outputs.back());
  }
  return outputs;
}

KernelRun invoke_kernel(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                        const std::vector<OutputSignature>& signatures,
                        const BufferPlacement& output_placement, bool trace_off_stream_work) {
  ScopedPhase phase(Phase::kernel_calls);
  if (runs_in_worker(kernel)) {
    return invoke_in_worker(kernel, inputs, signatures, output_placement, trace_off_stream_work);
  }
  KernelStreamScope stream_scope(kernel.device());
  // Inputs written on another stream (a draw on the legacy default stream) are complete before the
  // kernel's stream, which does not wait for that one, copies or reads them; the worker's path
  // synchronises the device before its request the same way.
  synchronize_device(kernel.device());
  KernelRun run;
  // Queued on the kernel's stream, so the poison and the redzones land before the kernel starts.
  if (!kernel.returns_tensors()) {
    run.outputs = allocate_poisoned_outputs(signatures, kernel.device(), output_placement);
  }
  std::vector<at::Tensor> staged;  // inputs as the kernel sees them: in guarded buffers
  for (const at::Tensor& input : inputs) {
    staged.push_back(has_redzones(input) ? input : guarded_copy(input, kernel.device()));
  }
  arm_redzones(staged);
  arm_redzones(run.outputs);
  ExecutedCall executed =
      execute_kernel(kernel, staged, run.outputs, stream_scope, trace_off_stream_work);
  const FinalAtReturn final_at_return = check_outputs_final(
      executed, kernel.returns_tensors() ? executed.returned : run.outputs, stream_scope);
  throw_if_not_final(kernel.task_id(), final_at_return.failure, final_at_return.changed_output);
  check_redzones(kernel.task_id(), staged, run.outputs);
  return_staged_inputs(inputs, staged);
  if (kernel.returns_tensors()) run.outputs = std::move(executed.returned);
  run.operators = std::move(executed.operators);
  run.stream_milliseconds = executed.stream_milliseconds;
  run.call_start = executed.call_start;
  run.off_stream = final_at_return.off_stream;
  run.off_stream_untraced = final_at_return.off_stream_untraced;
  return run;
}

void return_staged_inputs(const std::vector<at::Tensor>& inputs, const std::vector<at::Tensor>& staged) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!staged[i].is_same(inputs[i])) inputs[i].copy_(staged[i]);
  }
}

void throw_if_not_final(const std::string& task_id, const std::string& failure, int changed_output) {
  if (failure.empty()) return;
  if (changed_output < 0) throw OutputsNotFinalAtReturn(failure);
  const auto index = static_cast<std::size_t>(changed_output);
  throw OutputsNotFinalAtReturn(
      replace_output_placeholder(failure, index, task_buffer_name(task_id, false, index)));
}

std::string describe_call_failure(const std::exception& error) {
  if (dynamic_cast<const OutOfBoundsWrite*>(&error) != nullptr) return error.what();
  if (dynamic_cast<const OutputsNotFinalAtReturn*>(&error) != nullptr) return error.what();
  return "the kernel threw: " + describe_exception(error);
}

std::vector<at::Tensor> run_reference_float64(const TaskSpec& task,
                                              const std::vector<at::Tensor>& inputs,
                                              Device device) {
  std::vector<at::Tensor> copies;
  for (const at::Tensor& input : inputs) {
    at::Tensor copy = input.to(to_torch_device(device), /*non_blocking=*/false, /*copy=*/true);
    copies.push_back(copy.is_floating_point() ? copy.to(at::kDouble) : copy);
  }
  return task.reference()(copies);
}

}  // namespace rkt
