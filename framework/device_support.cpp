#include "framework/device_support.h"

#include <ATen/Context.h>

#if RKT_WITH_CUDA
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

KernelStreamScope::KernelStreamScope(Device device) : device_(device) {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) {
    // A pooled stream is never the legacy default stream, so work a kernel puts elsewhere is not
    // ordered before our read-back.
    c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool(/*isHighPriority=*/false);
    stream_guard_ = new c10::cuda::CUDAStreamGuard(stream);
    stream_ = stream.stream();
  }
#endif
}

KernelStreamScope::~KernelStreamScope() {
#if RKT_WITH_CUDA
  delete static_cast<c10::cuda::CUDAStreamGuard*>(stream_guard_);
#endif
}

void KernelStreamScope::synchronize() const {
#if RKT_WITH_CUDA
  if (device_ == Device::cuda) c10::cuda::getCurrentCUDAStream().synchronize();
#endif
}

}  // namespace rkt
