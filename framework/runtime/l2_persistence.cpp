#include "framework/runtime/l2_persistence.h"

#include <stdexcept>
#include <string>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {

#if RKT_WITH_CUDA
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("resetting L2 persistence: ") + call + " failed: " +
                             cudaGetErrorString(status));
  }
}

bool l2_persistence_in_force(void* cuda_stream) {
  std::size_t carve_out = 0;
  if (cudaDeviceGetLimit(&carve_out, cudaLimitPersistingL2CacheSize) == cudaSuccess && carve_out > 0) {
    return true;
  }
  cudaStreamAttrValue window{};
  if (cudaStreamGetAttribute(static_cast<cudaStream_t>(cuda_stream),
                             cudaStreamAttributeAccessPolicyWindow, &window) == cudaSuccess) {
    return window.accessPolicyWindow.num_bytes > 0;
  }
  return false;
}

}  // namespace

bool reset_l2_persistence_if_set(void* cuda_stream) {
  if (!l2_persistence_in_force(cuda_stream)) return false;
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaStreamAttrValue none{};
  none.accessPolicyWindow.num_bytes = 0;
  none.accessPolicyWindow.hitRatio = 0;
  none.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
  none.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none),
        "cudaStreamSetAttribute(cudaStreamAttributeAccessPolicyWindow)");
  check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0),
        "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0)");
  return true;
}
#else
bool reset_l2_persistence_if_set(void*) { return false; }
#endif

}  // namespace rkt
