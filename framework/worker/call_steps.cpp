#include "framework/worker/call_steps.h"

#include <iostream>
#include <memory>

#include "framework/runtime/cache_flush.h"
#include "framework/runtime/cuda_runtime_device.h"
#include "framework/runtime/l2_persistence.h"
#include "framework/runtime/off_stream_work_trace.h"

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {

wire::Reply not_final_reply(const FinalAtReturn& final_at_return) {
  wire::Reply reply;
  reply.ok = false;
  reply.error = final_at_return.failure;
  reply.not_final_at_return = true;
  reply.not_final_output = final_at_return.changed_output;
  // A device that never became idle still runs the kernel's work: this worker is given up.
  reply.device_lost = final_at_return.device_busy;
  return reply;
}

wire::Reply cuda_call_reply(const FinalAtReturn& final_at_return,
                            std::chrono::steady_clock::time_point call_start) {
  if (!final_at_return.failure.empty()) return not_final_reply(final_at_return);
  wire::Reply reply;
  reply.ok = true;
  reply.device_milliseconds =
      std::chrono::duration<double, std::milli>(final_at_return.device_idle_at - call_start)
          .count();
  reply.off_stream_traced = final_at_return.off_stream.has_value();
  if (final_at_return.off_stream) {
    reply.off_stream_milliseconds = final_at_return.off_stream->milliseconds;
    reply.off_stream_latest = final_at_return.off_stream->latest;
  }
  reply.off_stream_untraced = final_at_return.off_stream_untraced;
  return reply;
}

wire::Reply measure_samples(const KernelSpec& kernel, const wire::Request& request,
                            const std::vector<CallArguments>& sets, LightStreamScope& scope,
                            const std::function<void(std::size_t)>& call) {
  wire::Reply reply;
  const bool cuda = kernel.device() == Device::cuda;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0;; ++i) {
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= request.warmup_milliseconds) break;
    call(i % sets.size());
    scope.synchronize();
  }
  // The last timed call's outputs are hashed in stream order behind it, outside its events.
  OutputFingerprints at_return;
  std::vector<HashedBuffer> last_outputs;
  for (std::uint32_t s = 0; s < request.samples; ++s) {
    const std::size_t set = (request.first_set + s) % sets.size();
    // Persistence first, then the flush: reset lines are normal lines, which the flush evicts.
    if (cuda && reset_l2_persistence_if_set(scope.stream())) reply.l2_persistence_reset = true;
    if (request.flush_caches) flush_caches(kernel.device(), scope.stream());
    scope.mark_start();
    call(set);
    scope.mark_end();
    if (cuda && s + 1 == request.samples) {
      last_outputs = hashed_buffers(sets[set].outputs);
      at_return.enqueue(last_outputs, scope.stream());
    }
    reply.samples.push_back(scope.elapsed_milliseconds());
  }
  if (!last_outputs.empty()) {
    const FinalAtReturn final_at_return =
        check_outputs_final(at_return.read(scope.stream()), nullptr, last_outputs, scope.stream());
    if (!final_at_return.failure.empty()) return not_final_reply(final_at_return);
  }
  reply.ok = true;
  return reply;
}

void prepare_cuda_calls(LightStreamScope& scope) {
  flush_caches(Device::cuda, scope.stream());
  prepare_output_fingerprints();
#if RKT_WITH_CUDA
  // The default memory pool (cudaMallocAsync, which kernels use for scratch) is set up on its
  // first use: here, before the sandbox closes the file system.
  void* probe = nullptr;
  const auto stream = static_cast<cudaStream_t>(scope.stream());
  if (cudaMallocAsync(&probe, 256, stream) == cudaSuccess) cudaFreeAsync(probe, stream);
  cudaStreamSynchronize(stream);
#endif
  scope.mark_start();
  scope.mark_end();
  scope.elapsed_milliseconds();
  // CUPTI reads /sys as it starts, which the sandbox hides: the escaped-work gate's trace is
  // started once here. A failure is told in each traced call's reply, and the gate then reads
  // the host's clock.
  if (const std::string why_not = prepare_off_stream_tracing(); !why_not.empty()) {
    std::cerr << "rkt-worker: device work cannot be traced: " << why_not << "\n";
  }
}

bool uses_cuda_device(const std::vector<KernelSpec*>& kernels) {
  for (const KernelSpec* kernel : kernels) {
    if (kernel->device() == Device::cuda) return cuda_device_visible();
  }
  return false;
}

std::string check_devices_in_sandbox(const std::vector<KernelSpec*>& kernels) {
#if RKT_WITH_CUDA
  if (!uses_cuda_device(kernels)) return "";
  LightStreamScope scope(Device::cuda);
  const auto stream = static_cast<cudaStream_t>(scope.stream());
  void* probe = nullptr;
  const cudaError_t status = cudaMallocAsync(&probe, 1 << 20, stream);
  if (status != cudaSuccess) {
    return std::string("; NOT WORKING in the sandbox: cudaMallocAsync (") +
           cudaGetErrorString(status) + ")";
  }
  cudaFreeAsync(probe, stream);
  cudaStreamSynchronize(stream);
#else
  (void)kernels;
#endif
  return "";
}

}  // namespace rkt
