// The calls of a worker without LibTorch (kernel_calls.h): view-form kernels on the CUDA runtime
// alone. What the LibTorch calls add has nothing to act on here: no ATen operator can run (LibTorch
// is not in the process, and the sandbox lets nothing be loaded later), so none is observed; the
// caching allocator whose free blocks the LibTorch calls scrub does not exist, and a kernel's
// scratch (cudaMalloc, cudaMallocAsync) never held the judge's reference, which lives in the
// judge's process. Peak memory is the default pool's, as it is for a view-form kernel there.
#include <chrono>
#include <memory>

#include "framework/runtime/cache_flush.h"
#include "framework/runtime/cuda_runtime_device.h"
#include "framework/runtime/default_memory_pool.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/worker/call_steps.h"
#include "framework/worker/kernel_calls.h"

namespace rkt {
namespace {

class LightKernelCalls : public KernelCalls {
 public:
  void prepare_devices(const std::vector<KernelSpec*>& kernels) override {
    learn_cache_sizes();
    if (!uses_cuda_device(kernels)) return;
    LightStreamScope scope(Device::cuda);
    prepare_cuda_calls(scope);
  }

  wire::Reply call(const KernelSpec& kernel, const CallArguments& arguments,
                   bool trace_off_stream_work) override {
    const bool cuda = kernel.device() == Device::cuda;
    LightStreamScope scope(kernel.device());
    KernelCall call(arguments.inputs, arguments.outputs, scope.stream(), nullptr);
    const DefaultPoolWatermark pool;
    std::unique_ptr<OffStreamWorkTrace> trace;
    if (trace_off_stream_work && cuda) trace = std::make_unique<OffStreamWorkTrace>(scope.stream());
    const auto call_start = std::chrono::steady_clock::now();
    scope.mark_start();
    kernel.function()(call);
    scope.mark_end();
    if (trace) trace->mark_stream_end();
    const std::vector<HashedBuffer> outputs = hashed_buffers(arguments.outputs);
    OutputFingerprints at_return;
    // Queued before any host synchronisation: in stream order, right behind the kernel's work.
    if (cuda) at_return.enqueue(outputs, scope.stream());
    scope.synchronize();
    const double stream_milliseconds = scope.elapsed_milliseconds();
    if (!cuda) {
      wire::Reply reply;
      reply.ok = true;
      reply.stream_milliseconds = stream_milliseconds;
      return reply;
    }
    const FinalAtReturn final_at_return =
        check_outputs_final(at_return.read(scope.stream()), trace.get(), outputs, scope.stream());
    wire::Reply reply = cuda_call_reply(final_at_return, call_start);
    if (!reply.ok) return reply;
    reply.stream_milliseconds = stream_milliseconds;
    reply.peak_memory_bytes = pool.bytes_added();
    return reply;
  }

  wire::Reply measure(const KernelSpec& kernel, const std::vector<CallArguments>& sets,
                      const wire::Request& request) override {
    LightStreamScope scope(kernel.device());
    std::vector<std::unique_ptr<KernelCall>> calls;
    for (const CallArguments& arguments : sets) {
      calls.push_back(std::make_unique<KernelCall>(arguments.inputs, arguments.outputs,
                                                   scope.stream(), nullptr));
    }
    return measure_samples(kernel, request, sets, scope,
                           [&](std::size_t i) { kernel.function()(*calls[i]); });
  }

  void synchronize_devices() override {
    if (cuda_device_visible()) synchronize_device(Device::cuda);
  }

  std::string describe_exception(const std::exception& error) const override {
    return error.what();
  }
};

}  // namespace

KernelCalls& light_kernel_calls() {
  static LightKernelCalls calls;
  return calls;
}

}  // namespace rkt
