#include "framework/runtime/outputs_final_at_return.h"

#include <cstdio>
#include <stdexcept>

#include "framework/runtime/cuda_runtime_device.h"
#include "rkt/defaults.h"

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>

#include "framework/runtime/output_fingerprint_kernel.h"
#endif

namespace rkt {
namespace {

#if RKT_WITH_CUDA
// One set of hash slots per process, in device memory, and a pinned host copy: allocated once
// (cudaMalloc, outside the caching allocator whose free blocks the scrub fills).
struct HashSlots {
  std::uint64_t* device = nullptr;
  std::uint64_t* host = nullptr;
};

HashSlots& hash_slots() {
  static HashSlots slots = [] {
    HashSlots made;
    if (cudaMalloc(reinterpret_cast<void**>(&made.device), OutputFingerprints::kMaxOutputs * sizeof(std::uint64_t)) !=
            cudaSuccess ||
        cudaMallocHost(reinterpret_cast<void**>(&made.host), OutputFingerprints::kMaxOutputs * sizeof(std::uint64_t)) !=
            cudaSuccess) {
      throw std::runtime_error("outputs final at return: cannot allocate the hash slots");
    }
    return made;
  }();
  return slots;
}
#endif

std::string hex(std::uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

void prepare_output_fingerprints() {
#if RKT_WITH_CUDA
  HashSlots& slots = hash_slots();
  // One hash now, so the first call's is not delayed: CUDA loads a module on its first launch
  // (lazy loading), and on the H200 that delay let a side-stream relu of 0.13 ms finish before
  // the first hash at return ran (relu/late_join_next_call passed its first case).
  cudaMemset(slots.device, 0, 2 * sizeof(std::uint64_t));
  enqueue_byte_hash(slots.device, sizeof(std::uint64_t), slots.device + 1, nullptr);
  cudaDeviceSynchronize();
#endif
}

HashedBuffer hashed_buffer(const TensorView& view) {
  if (view.data == nullptr || view.device != Device::cuda || !view.is_contiguous()) return {};
  return {view.data, static_cast<std::size_t>(view.numel()) * element_size(view.dtype), true};
}

std::vector<HashedBuffer> hashed_buffers(const std::vector<TensorView>& views) {
  std::vector<HashedBuffer> buffers;
  for (const TensorView& view : views) buffers.push_back(hashed_buffer(view));
  return buffers;
}

void OutputFingerprints::enqueue(const std::vector<HashedBuffer>& outputs, void* cuda_stream) {
  if (outputs.size() > kMaxOutputs) {
    throw std::runtime_error("outputs final at return: " + std::to_string(outputs.size()) +
                             " outputs, more than the " + std::to_string(kMaxOutputs) +
                             " the check hashes");
  }
  on_cuda_.assign(outputs.size(), false);
#if RKT_WITH_CUDA
  bool any = false;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    on_cuda_[i] = outputs[i].on_cuda;
    any = any || on_cuda_[i];
  }
  if (!any) return;
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  HashSlots& slots = hash_slots();
  cudaMemsetAsync(slots.device, 0, outputs.size() * sizeof(std::uint64_t), stream);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!on_cuda_[i]) continue;
    const int status =
        enqueue_byte_hash(outputs[i].data, outputs[i].bytes, slots.device + i, cuda_stream);
    if (status != 0) {
      throw std::runtime_error(std::string("outputs final at return: the hash kernel did not "
                                           "launch (") +
                               cudaGetErrorString(static_cast<cudaError_t>(status)) + ")");
    }
  }
  cudaMemcpyAsync(slots.host, slots.device, outputs.size() * sizeof(std::uint64_t),
                  cudaMemcpyDeviceToHost, stream);
#else
  (void)cuda_stream;
#endif
}

std::vector<std::uint64_t> OutputFingerprints::read(void* cuda_stream) {
  std::vector<std::uint64_t> hashes(on_cuda_.size(), 0);
#if RKT_WITH_CUDA
  bool any = false;
  for (bool cuda : on_cuda_) any = any || cuda;
  if (!any) return hashes;
  const cudaError_t status = cudaStreamSynchronize(static_cast<cudaStream_t>(cuda_stream));
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("outputs final at return: ") + cudaGetErrorName(status) +
                             ": " + cudaGetErrorString(status));
  }
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    if (on_cuda_[i]) hashes[i] = hash_slots().host[i];
  }
#else
  (void)cuda_stream;
#endif
  return hashes;
}

OutputChange outputs_changed_after_return(const std::vector<HashedBuffer>& outputs,
                                          const std::vector<std::uint64_t>& at_return,
                                          void* cuda_stream) {
  OutputFingerprints now;
  now.enqueue(outputs, cuda_stream);
  const std::vector<std::uint64_t> after = now.read(cuda_stream);
  for (std::size_t i = 0; i < after.size() && i < at_return.size(); ++i) {
    if (after[i] == at_return[i]) continue;
    return {static_cast<int>(i),
            "outputs not final at return: " + output_placeholder(i) +
                " changed after the kernel returned (its hash in stream order at return " +
                hex(at_return[i]) + ", after a device-wide synchronisation " + hex(after[i]) +
                "): work on another stream, in a host callback, in a graph launched elsewhere or "
                "in a kernel still running wrote it later; a caller reading it on the kernel's "
                "stream would have read it unfinished"};
  }
  return {};
}

FinalAtReturn check_outputs_final(const std::vector<std::uint64_t>& at_return,
                                  OffStreamWorkTrace* trace,
                                  const std::vector<HashedBuffer>& outputs, void* cuda_stream) {
  FinalAtReturn verdict;
  if (at_return.empty()) {
    verdict.device_idle_at = std::chrono::steady_clock::now();
    return verdict;
  }
  if (!synchronize_device_within(Device::cuda, defaults::kDeviceIdleAfterReturnSeconds,
                                 &verdict.device_idle_at)) {
    verdict.device_busy = true;
    verdict.failure = device_busy_after_return_message(defaults::kDeviceIdleAfterReturnSeconds);
    return verdict;
  }
  if (trace != nullptr) {
    verdict.off_stream = trace->finish();
    verdict.off_stream_untraced = trace->untraced_reason();
  }
  OutputChange change = outputs_changed_after_return(outputs, at_return, cuda_stream);
  verdict.changed_output = change.output;
  verdict.failure = std::move(change.message);
  return verdict;
}

std::string device_busy_after_return_message(double seconds) {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", seconds);
  return std::string("outputs not final at return: the device was still busy ") + limit +
         " s after the kernel's stream completed (a kernel still running, e.g. a persistent "
         "kernel serving calls, or work left queued on another stream); the worker is replaced";
}

std::string output_placeholder(std::size_t index) { return "output #" + std::to_string(index); }

std::string replace_output_placeholder(std::string message, std::size_t index,
                                       const std::string& name) {
  const std::string placeholder = output_placeholder(index);
  const std::size_t at = message.find(placeholder);
  if (at != std::string::npos) message.replace(at, placeholder.size(), name);
  return message;
}

}  // namespace rkt
