#include "framework/kernel_invocation.h"

#include <ATen/ATen.h>

#include <limits>
#include <stdexcept>

#include "framework/device_support.h"
#include "framework/memory_scrub.h"
#include "framework/operator_observer.h"
#include "framework/torch_bridge.h"
#include "rkt/torch_kernel.h"

namespace rkt {

std::string describe_exception(const std::exception& error) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&error)) {
    return torch_error->what_without_backtrace();
  }
  return error.what();
}

std::vector<at::Tensor> meta_copies(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> meta;
  for (const at::Tensor& tensor : tensors) {
    meta.push_back(at::empty(tensor.sizes(), tensor.options().device(at::kMeta)));
  }
  return meta;
}

std::vector<OutputSignature> infer_output_signatures(const TaskSpec& task,
                                                     const std::vector<at::Tensor>& inputs,
                                                     Device device) {
  std::vector<at::Tensor> outputs;
  try {
    outputs = task.reference()(meta_copies(inputs));
  } catch (const c10::Error&) {
    std::vector<at::Tensor> zero_inputs;
    for (const at::Tensor& input : inputs) {
      zero_inputs.push_back(at::zeros(input.sizes(), input.options().device(to_torch_device(device))));
    }
    outputs = task.reference()(zero_inputs);
  }
  if (outputs.size() != task.output_names().size()) {
    throw std::invalid_argument("task '" + task.id() + "': the reference returns " +
                                std::to_string(outputs.size()) + " tensors but the task names " +
                                std::to_string(task.output_names().size()) + " outputs");
  }
  std::vector<OutputSignature> signatures;
  for (const at::Tensor& output : outputs) {
    signatures.push_back({output.sizes().vec(), output.scalar_type()});
  }
  return signatures;
}

std::vector<at::Tensor> allocate_poisoned_outputs(const std::vector<OutputSignature>& signatures,
                                                  Device device) {
  std::vector<at::Tensor> outputs;
  for (const OutputSignature& signature : signatures) {
    at::Tensor output = at::empty(
        signature.sizes, at::TensorOptions().dtype(signature.dtype).device(to_torch_device(device)));
    if (at::isFloatingType(signature.dtype)) {
      output.fill_(std::numeric_limits<double>::quiet_NaN());
    } else {
      output.fill_(std::numeric_limits<std::int64_t>::min());
    }
    outputs.push_back(output);
  }
  return outputs;
}

KernelRun invoke_kernel(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                        const std::vector<OutputSignature>& signatures) {
  KernelStreamScope stream_scope(kernel.device());
  std::vector<TensorView> input_views;
  for (const at::Tensor& input : inputs) input_views.push_back(to_view(input));
  KernelRun run;
  detail::TorchKernelIO io{inputs, {}};
  std::vector<TensorView> output_views;
  if (!kernel.returns_tensors()) {
    // Queued on the kernel's stream, so the poison lands before the kernel starts.
    run.outputs = allocate_poisoned_outputs(signatures, kernel.device());
    for (const at::Tensor& output : run.outputs) output_views.push_back(to_view(output));
  }
  scrub_free_device_memory(kernel.device(), stream_scope.stream());
  KernelCall call(input_views, output_views, stream_scope.stream(),
                  kernel.returns_tensors() ? &io : nullptr);
  stream_scope.synchronize();  // Setup finished: nothing of ours runs inside the timed region.
  {
    OperatorObserver observer;
    run.call_start = std::chrono::steady_clock::now();
    stream_scope.mark_start();
    kernel.function()(call);
    stream_scope.mark_end();
    run.operators = observer.operators();
  }
  if (kernel.returns_tensors()) run.outputs = std::move(io.outputs);
  stream_scope.synchronize();
  run.stream_milliseconds = stream_scope.elapsed_milliseconds();
  return run;
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
