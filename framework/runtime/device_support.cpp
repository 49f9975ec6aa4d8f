#include "framework/runtime/device_support.h"

#include <ATen/Context.h>
#include <ATen/ops/empty.h>

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#if RKT_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <cuda_runtime_api.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace rkt {

std::string device_unavailable_reason(Device device) {
  if (device == Device::cpu) return "";
#if RKT_WITH_CUDA
  if (!at::hasCUDA()) {
    return "no CUDA device is visible to LibTorch (at::hasCUDA() is false; CUDA_VISIBLE_DEVICES='" +
           std::string(std::getenv("CUDA_VISIBLE_DEVICES") ? std::getenv("CUDA_VISIBLE_DEVICES")
                                                           : "<unset>") +
           "')";
  }
  return "";
#else
  return "this build of RobustKernelTest has no CUDA support (nvcc or a CUDA LibTorch was not "
         "found at configure time)";
#endif
}

bool device_available(Device device) { return device_unavailable_reason(device).empty(); }

std::string device_identity(Device device) {
  if (device == Device::cpu || !device_available(device)) return "";
#if RKT_WITH_CUDA
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, c10::cuda::current_device()) != cudaSuccess) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string identity = "gpu-";
  for (int i = 0; i < 16; ++i) {
    const auto byte = static_cast<unsigned char>(properties.uuid.bytes[i]);
    identity += kHex[byte >> 4];
    identity += kHex[byte & 15];
  }
  return identity;
#else
  return "";
#endif
}

void ready_cuda_context() {
  if (!device_available(Device::cuda)) return;
#if RKT_WITH_CUDA
  c10::cuda::CUDAGuard guard(c10::cuda::current_device());
  cudaFree(nullptr);  // the primary context
  // LibTorch's side: its CUDA state and caching allocator, on the first tensor.
  at::empty({1}, at::TensorOptions().device(at::kCUDA, c10::cuda::current_device()));
#endif
}

namespace {
double host_milliseconds() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

KernelStreamScope::KernelStreamScope(Device device) : device_(device) {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) {
    // One pooled stream for the whole process: never the legacy default stream, so work a kernel
    // puts elsewhere is not ordered before our read-back; and the same stream every time, so the
    // caching allocator's blocks freed by the reference are the ones a kernel would be handed.
    static const c10::cuda::CUDAStream kernel_stream =
        c10::cuda::getStreamFromPool(/*isHighPriority=*/false);
    stream_guard_ = new c10::cuda::CUDAStreamGuard(kernel_stream);
    stream_ = kernel_stream.stream();
  }
#endif
}

KernelStreamScope::~KernelStreamScope() {
#if RKT_WITH_CUDA
  delete static_cast<at::cuda::CUDAEvent*>(start_event_);
  delete static_cast<at::cuda::CUDAEvent*>(end_event_);
  delete static_cast<c10::cuda::CUDAStreamGuard*>(stream_guard_);
#endif
}

void KernelStreamScope::mark_start() {
  host_start_ = host_milliseconds();
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) {
    if (start_event_ == nullptr) start_event_ = new at::cuda::CUDAEvent(cudaEventDefault);
    static_cast<at::cuda::CUDAEvent*>(start_event_)->record(c10::cuda::getCurrentCUDAStream());
  }
#endif
}

void KernelStreamScope::mark_end() {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) {
    if (end_event_ == nullptr) end_event_ = new at::cuda::CUDAEvent(cudaEventDefault);
    static_cast<at::cuda::CUDAEvent*>(end_event_)->record(c10::cuda::getCurrentCUDAStream());
  }
#endif
  host_end_ = host_milliseconds();
}

double KernelStreamScope::elapsed_milliseconds() const {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda && start_event_ != nullptr && end_event_ != nullptr) {
    auto* end = static_cast<at::cuda::CUDAEvent*>(end_event_);
    end->synchronize();
    return static_cast<at::cuda::CUDAEvent*>(start_event_)->elapsed_time(*end);
  }
#endif
  return host_end_ - host_start_;
}

void synchronize_device(Device device) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) c10::cuda::device_synchronize();
#else
  (void)device;
#endif
}

bool synchronize_device_within(Device device, double seconds,
                               std::chrono::steady_clock::time_point* idle_at) {
#if RKT_WITH_CUDA
  if (device != Device::cuda) {
    if (idle_at != nullptr) *idle_at = std::chrono::steady_clock::now();
    return true;
  }
  // cudaDeviceSynchronize has no time limit of its own: it waits in a thread of its own, which is
  // left behind (blocked) when the device stays busy; the caller then gives the process up.
  struct Waited {
    cudaError_t status;
    std::chrono::steady_clock::time_point idle_at;
  };
  auto done = std::make_shared<std::promise<Waited>>();
  std::future<Waited> finished = done->get_future();
  int current = 0;
  cudaGetDevice(&current);
  std::thread([done, current] {
    cudaSetDevice(current);
    const cudaError_t status = cudaDeviceSynchronize();
    done->set_value({status, std::chrono::steady_clock::now()});
  }).detach();
  if (finished.wait_for(std::chrono::duration<double>(seconds)) != std::future_status::ready) {
    return false;
  }
  const Waited waited = finished.get();
  if (waited.status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(waited.status));
  }
  if (idle_at != nullptr) *idle_at = waited.idle_at;
#else
  (void)device;
  (void)seconds;
  if (idle_at != nullptr) *idle_at = std::chrono::steady_clock::now();
#endif
  return true;
}

std::string lost_cuda_context_error() {
#if RKT_WITH_CUDA
  if (cudaDeviceSynchronize() == cudaSuccess) return "";
  cudaGetLastError();  // Clears an error that does not lose the context (a bad launch)...
  const cudaError_t status = cudaDeviceSynchronize();  // ...a sticky one stays.
  if (status == cudaSuccess) return "";
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
#else
  return "";
#endif
}

void KernelStreamScope::synchronize() const {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) c10::cuda::getCurrentCUDAStream().synchronize();
#endif
}

}  // namespace rkt
