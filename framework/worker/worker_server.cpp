#include "framework/worker/worker_server.h"

#include <ATen/ATen.h>

#include <chrono>
#include <memory>

#include "framework/runtime/cache_flush.h"
#include "framework/runtime/l2_persistence.h"
#include "framework/runtime/device_memory.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/kernel_execution.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/runtime/torch_bridge.h"
#include "framework/worker/buffer_mapping.h"

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif
#include "rkt/torch_kernel.h"

namespace rkt {
namespace {

std::vector<at::Tensor> tensors_of(const std::vector<wire::TensorRef>& refs,
                                   const BufferMapping& buffers) {
  std::vector<at::Tensor> tensors;
  for (const wire::TensorRef& ref : refs) {
    tensors.push_back(at::from_blob(
        buffers.address_of(ref), ref.sizes, ref.strides,
        at::TensorOptions().dtype(to_scalar_type(ref.dtype)).device(to_torch_device(ref.device))));
  }
  return tensors;
}

struct Arguments {
  std::vector<at::Tensor> inputs, outputs;
};

std::vector<Arguments> arguments_of(const wire::Request& request, const BufferMapping& buffers) {
  std::vector<Arguments> sets;
  for (const wire::ArgumentSet& set : request.sets) {
    sets.push_back({tensors_of(set.inputs, buffers), tensors_of(set.outputs, buffers)});
  }
  if (sets.empty()) throw wire::WireError("a request without arguments");
  return sets;
}

// One prepared call per argument set, for the timed loop: no scrub and no observer inside it.
class PreparedCall {
 public:
  PreparedCall(const PreparedCall&) = delete;
  PreparedCall& operator=(const PreparedCall&) = delete;
  PreparedCall(const KernelSpec& kernel, const Arguments& arguments, void* stream)
      : kernel_(kernel), outputs_(arguments.outputs), io_{arguments.inputs, {}} {
    std::vector<TensorView> input_views, output_views;
    for (const at::Tensor& input : arguments.inputs) input_views.push_back(to_view(input));
    if (!kernel.returns_tensors()) {
      for (const at::Tensor& output : arguments.outputs) output_views.push_back(to_view(output));
    }
    call_ = std::make_unique<KernelCall>(input_views, output_views, stream,
                                         kernel.returns_tensors() ? &io_ : nullptr);
  }
  void operator()() {
    kernel_.function()(*call_);
    if (kernel_.returns_tensors()) copy_returned_outputs(io_.outputs, outputs_);
  }
  /// What the caller reads after a call: the preallocated outputs (tensor-form results copied in).
  const std::vector<at::Tensor>& outputs() const { return outputs_; }

 private:
  const KernelSpec& kernel_;
  std::vector<at::Tensor> outputs_;
  detail::TorchKernelIO io_;
  std::unique_ptr<KernelCall> call_;
};

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

// Thrown out of the peak-memory measurement when the device stays busy after a call: the
// measurement's closing device synchronisation would wait for ever (a persistent kernel).
struct DeviceBusyAfterReturn {
  FinalAtReturn verdict;
};

wire::Reply run_call(const KernelSpec& kernel, const Arguments& arguments,
                     bool trace_off_stream_work) {
  wire::Reply reply;
  KernelStreamScope scope(kernel.device());
  ExecutedCall executed;
  FinalAtReturn final_at_return;
  try {
    reply.peak_memory_bytes = peak_bytes_added(kernel.device(), [&] {
      executed =
          execute_kernel(kernel, arguments.inputs, arguments.outputs, scope, trace_off_stream_work);
      if (kernel.returns_tensors()) {
        copy_returned_outputs(executed.returned, arguments.outputs);
        scope.synchronize();
      }
      // Before the measurement synchronises the device: that waits for whatever still runs.
      if (kernel.device() == Device::cuda) {
        final_at_return = check_outputs_final(executed, arguments.outputs, scope);
        if (final_at_return.device_busy) throw DeviceBusyAfterReturn{final_at_return};
      }
    });
  } catch (const DeviceBusyAfterReturn& busy) {
    return not_final_reply(busy.verdict);
  }
  if (kernel.device() == Device::cuda) {
    reply.device_milliseconds = std::chrono::duration<double, std::milli>(
                                    final_at_return.device_idle_at - executed.call_start).count();
    reply.off_stream_traced = final_at_return.off_stream.has_value();
    if (final_at_return.off_stream) {
      reply.off_stream_milliseconds = final_at_return.off_stream->milliseconds;
      reply.off_stream_latest = final_at_return.off_stream->latest;
    }
    reply.off_stream_untraced = final_at_return.off_stream_untraced;
    if (!final_at_return.failure.empty()) return not_final_reply(final_at_return);
  }
  reply.ok = true;
  reply.stream_milliseconds = executed.stream_milliseconds;
  reply.operators = std::move(executed.operators);
  return reply;
}

wire::Reply run_measure(const KernelSpec& kernel, const std::vector<Arguments>& sets,
                        const wire::Request& request) {
  wire::Reply reply;
  KernelStreamScope scope(kernel.device());
  // Held by pointer: a KernelCall points into its PreparedCall, which must not move.
  std::vector<std::unique_ptr<PreparedCall>> calls;
  for (const Arguments& arguments : sets) {
    calls.push_back(std::make_unique<PreparedCall>(kernel, arguments, scope.stream()));
  }
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0;; ++i) {
    const double elapsed = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start).count();
    if (elapsed >= request.warmup_milliseconds) break;
    (*calls[i % calls.size()])();
    scope.synchronize();
  }
  // The last timed call's outputs are checked for being final at return (at the benchmark's size,
  // where deferring work would pay): hashed in stream order behind it, outside its events.
  ExecutedCall last;
  OutputFingerprints at_return;
  const std::vector<at::Tensor>* last_outputs = nullptr;
  for (std::uint32_t s = 0; s < request.samples; ++s) {
    PreparedCall& call = *calls[(request.first_set + s) % calls.size()];
    // Persistence first, then the flush: reset lines are normal lines, which the flush evicts.
    if (kernel.device() == Device::cuda && reset_l2_persistence_if_set(scope.stream())) {
      reply.l2_persistence_reset = true;
    }
    if (request.flush_caches) flush_caches(kernel.device());
    scope.mark_start();
    call();
    scope.mark_end();
    if (kernel.device() == Device::cuda && s + 1 == request.samples) {
      last_outputs = &call.outputs();
      at_return.enqueue(*last_outputs, scope.stream());
    }
    reply.samples.push_back(scope.elapsed_milliseconds());
  }
  if (last_outputs != nullptr) {
    last.fingerprints_at_return = at_return.read(scope.stream());
    const FinalAtReturn final_at_return = check_outputs_final(last, *last_outputs, scope);
    if (!final_at_return.failure.empty()) return not_final_reply(final_at_return);
  }
  reply.ok = true;
  return reply;
}

// Whether handling `request` may have touched CUDA (a check that initialised CUDA in a
// worker running only CPU kernels would cost a context).
bool uses_cuda(const wire::Request& request, const WorkerState& state) {
  if (request.kind == wire::RequestKind::synchronize) {
    for (const KernelSpec* kernel : state.kernels) {
      if (kernel->device() == Device::cuda) return device_available(Device::cuda);
    }
    return false;
  }
  return request.kernel < state.kernels.size() &&
         state.kernels[request.kernel]->device() == Device::cuda;
}

}  // namespace

void prepare_devices(const std::vector<KernelSpec*>& kernels) {
  // The CPU's flush buffer (twice the last-level cache: 600 MB on a 300 MB-LLC host) is allocated
  // by the first timed request: a worker that only runs test cases never needs it, and touching
  // it here cost every worker start 0.45 s; its size is read now, while /sys is visible. CUDA is
  // readied here because the sandbox would stop it.
  learn_cache_sizes();
  bool cuda = false;
  for (const KernelSpec* kernel : kernels) cuda = cuda || kernel->device() == Device::cuda;
  if (cuda && device_available(Device::cuda)) {
    KernelStreamScope scope(Device::cuda);
    flush_caches(Device::cuda);
    at::empty({1}, at::TensorOptions().device(at::kCUDA)).fill_(0);
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
  }
}

std::string check_devices_in_sandbox(const std::vector<KernelSpec*>& kernels) {
#if RKT_WITH_CUDA
  bool cuda = false;
  for (const KernelSpec* kernel : kernels) cuda = cuda || kernel->device() == Device::cuda;
  if (!cuda || !device_available(Device::cuda)) return "";
  KernelStreamScope scope(Device::cuda);
  const auto stream = static_cast<cudaStream_t>(scope.stream());
  void* probe = nullptr;
  const cudaError_t status = cudaMallocAsync(&probe, 1 << 20, stream);
  if (status != cudaSuccess) {
    return std::string("; NOT WORKING in the sandbox: cudaMallocAsync (") + cudaGetErrorString(status) + ")";
  }
  cudaFreeAsync(probe, stream);
  cudaStreamSynchronize(stream);
#else
  (void)kernels;
#endif
  return "";
}

int serve_worker_requests(int socket, WorkerState& state) {
  BufferMapping buffers;
  for (;;) {
    wire::Datagram datagram;
    if (wire::receive_datagram(socket, -1, datagram) != wire::ReceiveStatus::received) return 0;
    const wire::Request request = wire::decode_request(datagram.bytes);
    if (request.kind == wire::RequestKind::adopt) buffers.release_all();
    if (request.kind == wire::RequestKind::describe || request.kind == wire::RequestKind::adopt) {
      wire::send_datagram(socket, {wire::encode(state.description, request.sequence), {}});
      continue;
    }
    const auto mapping_start = std::chrono::steady_clock::now();
    buffers.release(request.released);
    buffers.map(request.new_buffers, datagram.fds);
    const double mapping_milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mapping_start).count();
    wire::Reply reply;
    try {
      if (request.kind == wire::RequestKind::synchronize) {
        for (Device device : {Device::cpu, Device::cuda}) synchronize_device(device);
        reply.ok = true;
      } else {
        if (request.kernel >= state.kernels.size()) throw wire::WireError("unknown kernel index");
        const KernelSpec& kernel = *state.kernels[request.kernel];
        const std::vector<Arguments> sets = arguments_of(request, buffers);
        reply = request.kind == wire::RequestKind::call
                    ? run_call(kernel, sets[0], request.trace_off_stream_work)
                    : run_measure(kernel, sets, request);
      }
    } catch (const wire::WireError&) {
      throw;
    } catch (const std::exception& error) {
      reply.ok = false;
      reply.error = describe_exception(error);
      if (uses_cuda(request, state)) {
        const std::string lost = lost_cuda_context_error();
        if (!lost.empty()) {
          reply.device_lost = true;
          reply.error += "; the worker's CUDA context is lost (" + lost +
                         "): the judge replaces the worker before the next request";
        }
      }
    }
    reply.sequence = request.sequence;
    reply.mapping_milliseconds = mapping_milliseconds;
    reply.handling_milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - mapping_start)
            .count();
    wire::send_datagram(socket, {wire::encode(reply), {}});
  }
}

}  // namespace rkt
