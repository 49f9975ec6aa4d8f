#include "framework/runtime/device_support.h"

#include <ATen/Context.h>
#include <ATen/ops/empty.h>

#include <chrono>
#include <memory>
#include <stdexcept>

#if RKT_WITH_CUDA
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

#if RKT_WITH_CUDA
namespace {
// One pooled stream for the whole process: never the legacy default stream, so work a kernel puts
// elsewhere is not ordered before our read-back; and the same stream every time, so the caching
// allocator's blocks freed by the reference are the ones a kernel would be handed.
const c10::cuda::CUDAStream& pooled_kernel_stream() {
  static const c10::cuda::CUDAStream kernel_stream =
      c10::cuda::getStreamFromPool(/*isHighPriority=*/false);
  return kernel_stream;
}
}  // namespace

KernelStreamScope::KernelStreamScope(Device device)
    : LightStreamScope(device, device == Device::cuda ? pooled_kernel_stream().stream() : nullptr) {
  if (device == Device::cuda)
    stream_guard_ = new c10::cuda::CUDAStreamGuard(pooled_kernel_stream());
}

KernelStreamScope::~KernelStreamScope() {
  delete static_cast<c10::cuda::CUDAStreamGuard*>(stream_guard_);
}
#else
KernelStreamScope::KernelStreamScope(Device device) : LightStreamScope(device, nullptr) {}
KernelStreamScope::~KernelStreamScope() = default;
#endif

void* current_cuda_stream(Device device) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) return c10::cuda::getCurrentCUDAStream().stream();
#endif
  (void)device;
  return nullptr;
}

}  // namespace rkt
