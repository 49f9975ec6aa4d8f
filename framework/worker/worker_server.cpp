#include "framework/worker/worker_server.h"

#include <chrono>

#include "framework/runtime/cuda_runtime_device.h"
#include "framework/worker/buffer_mapping.h"
#include "framework/worker/call_steps.h"
#include "framework/worker/own_device_copies.h"

namespace rkt {
namespace {

std::vector<TensorView> views_of(const std::vector<wire::TensorRef>& refs,
                                 const BufferMapping& buffers) {
  std::vector<TensorView> views;
  for (const wire::TensorRef& ref : refs) {
    if (ref.sizes.size() != ref.strides.size() ||
        ref.sizes.size() > static_cast<std::size_t>(kMaxRank)) {
      throw wire::WireError("a tensor of rank " + std::to_string(ref.sizes.size()) + " with " +
                            std::to_string(ref.strides.size()) + " strides");
    }
    TensorView view;
    view.data = buffers.address_of(ref);
    view.rank = static_cast<int>(ref.sizes.size());
    for (int d = 0; d < view.rank; ++d) {
      view.sizes[d] = ref.sizes[static_cast<std::size_t>(d)];
      view.strides[d] = ref.strides[static_cast<std::size_t>(d)];
    }
    view.dtype = ref.dtype;
    view.device = ref.device;
    views.push_back(view);
  }
  return views;
}

std::vector<CallArguments> arguments_of(const wire::Request& request,
                                        const BufferMapping& buffers) {
  std::vector<CallArguments> sets;
  for (const wire::ArgumentSet& set : request.sets) {
    sets.push_back({views_of(set.inputs, buffers), views_of(set.outputs, buffers)});
  }
  if (sets.empty()) throw wire::WireError("a request without arguments");
  return sets;
}

// Whether handling `request` may have touched CUDA (a check that initialised CUDA in a
// worker running only CPU kernels would cost a context).
bool uses_cuda(const wire::Request& request, const WorkerState& state) {
  if (request.kind == wire::RequestKind::synchronize) return uses_cuda_device(state.kernels);
  return request.kernel < state.kernels.size() &&
         state.kernels[request.kernel]->device() == Device::cuda;
}

}  // namespace

int serve_worker_requests(int socket, WorkerState& state, KernelCalls& calls) {
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
        calls.synchronize_devices();
        reply.ok = true;
      } else {
        if (request.kernel >= state.kernels.size()) throw wire::WireError("unknown kernel index");
        const KernelSpec& kernel = *state.kernels[request.kernel];
        std::vector<CallArguments> sets = arguments_of(request, buffers);
        if (request.kind == wire::RequestKind::call && state.own_device_copies &&
            kernel.device() == Device::cuda) {
          const OwnDeviceCopies copies(sets[0]);
          reply = calls.call(kernel, sets[0], request.trace_off_stream_work);
          if (reply.ok) copies.copy_outputs_back();
        } else {
          reply = request.kind == wire::RequestKind::call
                      ? calls.call(kernel, sets[0], request.trace_off_stream_work)
                      : calls.measure(kernel, sets, request);
        }
      }
    } catch (const wire::WireError&) {
      throw;
    } catch (const std::exception& error) {
      reply.ok = false;
      reply.error = calls.describe_exception(error);
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
