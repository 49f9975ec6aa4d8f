#include "framework/runtime/cuda_runtime_device.h"

#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {
namespace {

double host_milliseconds() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#if RKT_WITH_CUDA
void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("CUDA error in ") + call + ": " +
                             cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
  }
}

cudaStream_t light_stream() {
  static const cudaStream_t stream = [] {
    cudaStream_t made = nullptr;
    check(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    return made;
  }();
  return stream;
}
#endif

}  // namespace

bool cuda_device_visible() {
#if RKT_WITH_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  return false;
#endif
}

void synchronize_device(Device device) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
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

LightStreamScope::LightStreamScope(Device device) : device_(device) {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) stream_ = light_stream();
#endif
}

LightStreamScope::LightStreamScope(Device device, void* cuda_stream)
    : device_(device), stream_(device == Device::cuda ? cuda_stream : nullptr) {}

LightStreamScope::~LightStreamScope() {
#if RKT_WITH_CUDA
  if (start_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(start_event_));
  if (end_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(end_event_));
#endif
}

void LightStreamScope::synchronize() const {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) {
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)), "cudaStreamSynchronize");
  }
#endif
}

void LightStreamScope::mark_start() {
  host_start_ = host_milliseconds();
  record(start_event_);
}

void LightStreamScope::mark_end() {
  record(end_event_);
  host_end_ = host_milliseconds();
}

void LightStreamScope::record(void*& event) {
#if RKT_WITH_CUDA
  if (device_ != Device::cuda) return;
  if (event == nullptr) {
    cudaEvent_t created = nullptr;
    check(cudaEventCreate(&created), "cudaEventCreate");
    event = created;
  }
  check(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream_)),
        "cudaEventRecord");
#else
  (void)event;
#endif
}

double LightStreamScope::elapsed_milliseconds() const {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda && start_event_ != nullptr && end_event_ != nullptr) {
    const auto end = static_cast<cudaEvent_t>(end_event_);
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float milliseconds = 0;
    check(cudaEventElapsedTime(&milliseconds, static_cast<cudaEvent_t>(start_event_), end),
          "cudaEventElapsedTime");
    return milliseconds;
  }
#endif
  return host_end_ - host_start_;
}

}  // namespace rkt
