// The calls of a worker whose library needs LibTorch (kernel_calls.h), built as the plugin
// librkt_worker_torch.so: tensor-form kernels, ATen operators observed, the caching allocator's
// free blocks scrubbed before each call and its peak measured, LibTorch's current stream the
// kernel's. rkt-worker loads it only for such a library, so a view-form library's worker never
// loads LibTorch.
#include <ATen/ATen.h>

#include <chrono>
#include <memory>

#include "framework/runtime/cache_flush.h"
#include "framework/runtime/device_memory.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/kernel_execution.h"
#include "framework/runtime/torch_bridge.h"
#include "framework/worker/call_steps.h"
#include "framework/worker/kernel_calls.h"
#include "rkt/torch_kernel.h"

namespace rkt {
namespace {

struct TensorArguments {
  std::vector<at::Tensor> inputs, outputs;
};

TensorArguments tensors_of(const CallArguments& arguments) {
  TensorArguments tensors;
  for (const TensorView& view : arguments.inputs) tensors.inputs.push_back(tensor_over(view));
  for (const TensorView& view : arguments.outputs) tensors.outputs.push_back(tensor_over(view));
  return tensors;
}

// One prepared call per argument set, for the timed loop: no scrub and no observer inside it.
class PreparedCall {
 public:
  PreparedCall(const PreparedCall&) = delete;
  PreparedCall& operator=(const PreparedCall&) = delete;
  PreparedCall(const KernelSpec& kernel, const CallArguments& arguments, void* stream)
      : kernel_(kernel), tensors_(tensors_of(arguments)), io_{tensors_.inputs, {}} {
    call_ = std::make_unique<KernelCall>(
        arguments.inputs, kernel.returns_tensors() ? std::vector<TensorView>{} : arguments.outputs,
        stream, kernel.returns_tensors() ? &io_ : nullptr);
  }
  void operator()() {
    kernel_.function()(*call_);
    if (kernel_.returns_tensors()) copy_returned_outputs(io_.outputs, tensors_.outputs);
  }

 private:
  const KernelSpec& kernel_;
  TensorArguments tensors_;
  detail::TorchKernelIO io_;
  std::unique_ptr<KernelCall> call_;
};

class TorchKernelCalls : public KernelCalls {
 public:
  void prepare_devices(const std::vector<KernelSpec*>& kernels) override {
    learn_cache_sizes();
    if (!uses_cuda_device(kernels) || !device_available(Device::cuda)) return;
    KernelStreamScope scope(Device::cuda);
    at::empty({1}, at::TensorOptions().device(at::kCUDA)).fill_(0);
    prepare_cuda_calls(scope);
  }

  wire::Reply call(const KernelSpec& kernel, const CallArguments& arguments,
                   bool trace_off_stream_work) override {
    const TensorArguments tensors = tensors_of(arguments);
    KernelStreamScope scope(kernel.device());
    ExecutedCall executed;
    FinalAtReturn final_at_return;
    double peak_memory_bytes = -1;
    try {
      peak_memory_bytes = peak_bytes_added(kernel.device(), [&] {
        executed =
            execute_kernel(kernel, tensors.inputs, tensors.outputs, scope, trace_off_stream_work);
        if (kernel.returns_tensors()) {
          copy_returned_outputs(executed.returned, tensors.outputs);
          scope.synchronize();
        }
        // Before the measurement synchronises the device: that waits for whatever still runs.
        if (kernel.device() == Device::cuda) {
          final_at_return = check_outputs_final(executed, tensors.outputs, scope);
          if (final_at_return.device_busy) throw DeviceBusyAfterReturn{final_at_return};
        }
      });
    } catch (const DeviceBusyAfterReturn& busy) {
      return not_final_reply(busy.verdict);
    }
    wire::Reply reply;
    if (kernel.device() == Device::cuda) {
      reply = cuda_call_reply(final_at_return, executed.call_start);
      if (!reply.ok) return reply;
    }
    reply.ok = true;
    reply.peak_memory_bytes = peak_memory_bytes;
    reply.stream_milliseconds = executed.stream_milliseconds;
    reply.operators = std::move(executed.operators);
    return reply;
  }

  wire::Reply measure(const KernelSpec& kernel, const std::vector<CallArguments>& sets,
                      const wire::Request& request) override {
    KernelStreamScope scope(kernel.device());
    // Held by pointer: a KernelCall points into its PreparedCall, which must not move.
    std::vector<std::unique_ptr<PreparedCall>> calls;
    for (const CallArguments& arguments : sets) {
      calls.push_back(std::make_unique<PreparedCall>(kernel, arguments, scope.stream()));
    }
    return measure_samples(kernel, request, sets, scope, [&](std::size_t i) { (*calls[i])(); });
  }

  void synchronize_devices() override {
    for (Device device : {Device::cpu, Device::cuda}) synchronize_device(device);
    // The kernel's blocks in LibTorch's cache go back to the GPU too: a judge asks for a
    // synchronisation when it gives back the memory it keeps (device_memory_return.h).
    release_cached_device_memory(Device::cuda);
  }

  std::string describe_exception(const std::exception& error) const override {
    return rkt::describe_exception(error);
  }
};

}  // namespace
}  // namespace rkt

extern "C" __attribute__((visibility("default"))) rkt::KernelCalls* rkt_torch_kernel_calls() {
  static rkt::TorchKernelCalls calls;
  return &calls;
}
