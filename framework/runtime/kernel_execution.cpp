#include "framework/runtime/kernel_execution.h"

#include <ATen/ATen.h>

#include <sstream>
#include <stdexcept>

#include "framework/runtime/memory_scrub.h"
#include "framework/runtime/operator_observer.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/torch_kernel.h"

namespace rkt {

std::string describe_exception(const std::exception& error) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&error)) {
    return torch_error->what_without_backtrace();
  }
  return error.what();
}

ExecutedCall execute_kernel(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                            const std::vector<at::Tensor>& outputs, KernelStreamScope& scope,
                            bool trace_off_stream_work) {
  std::vector<TensorView> input_views, output_views;
  for (const at::Tensor& input : inputs) input_views.push_back(to_view(input));
  if (!kernel.returns_tensors()) {
    for (const at::Tensor& output : outputs) output_views.push_back(to_view(output));
  }
  detail::TorchKernelIO io{inputs, {}};
  scrub_free_device_memory(kernel.device(), scope.stream());
  KernelCall call(input_views, output_views, scope.stream(),
                  kernel.returns_tensors() ? &io : nullptr);
  scope.synchronize();  // Setup finished: nothing of ours runs inside the timed region.
  ExecutedCall executed;
  if (trace_off_stream_work && kernel.device() == Device::cuda) {
    executed.off_stream_trace = std::make_unique<OffStreamWorkTrace>(scope.stream());
  }
  {
    OperatorObserver observer;
    executed.call_start = std::chrono::steady_clock::now();
    scope.mark_start();
    kernel.function()(call);
    scope.mark_end();
    if (executed.off_stream_trace) executed.off_stream_trace->mark_stream_end();
    executed.operators = observer.operators();
  }
  executed.returned = std::move(io.outputs);
  OutputFingerprints at_return;
  if (kernel.device() == Device::cuda) {
    // Queued before any host synchronisation: in stream order, right behind the kernel's work.
    at_return.enqueue(hashed_buffers(kernel.returns_tensors() ? executed.returned : outputs),
                      scope.stream());
  }
  scope.synchronize();
  executed.stream_milliseconds = scope.elapsed_milliseconds();
  if (kernel.device() == Device::cuda) executed.fingerprints_at_return = at_return.read(scope.stream());
  return executed;
}

FinalAtReturn check_outputs_final(const ExecutedCall& executed,
                                  const std::vector<at::Tensor>& outputs, KernelStreamScope& scope) {
  return check_outputs_final(executed.fingerprints_at_return, executed.off_stream_trace.get(),
                             hashed_buffers(outputs), scope.stream());
}

void copy_returned_outputs(const std::vector<at::Tensor>& returned,
                           const std::vector<at::Tensor>& outputs) {
  if (returned.size() != outputs.size()) {
    throw std::runtime_error("the kernel returned " + std::to_string(returned.size()) +
                             " outputs; the task has " + std::to_string(outputs.size()));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!returned[i].defined() || returned[i].sizes() != outputs[i].sizes() ||
        returned[i].scalar_type() != outputs[i].scalar_type() ||
        returned[i].device().type() != outputs[i].device().type()) {
      std::ostringstream message;
      message << "output " << i << ": the kernel returned ";
      if (returned[i].defined()) {
        message << returned[i].sizes() << " " << returned[i].scalar_type() << " on "
                << returned[i].device();
      } else {
        message << "an undefined tensor";
      }
      message << "; the task expects " << outputs[i].sizes() << " " << outputs[i].scalar_type()
              << " on " << outputs[i].device();
      throw std::runtime_error(message.str());
    }
    outputs[i].copy_(returned[i]);
  }
}

}  // namespace rkt
