#include "framework/runtime/l2_persistence.h"

#include <atomic>
#include <cstddef>
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

constexpr std::size_t kCarveOutUnknown = static_cast<std::size_t>(-1);
std::atomic<std::size_t> carve_out_at_start{kCarveOutUnknown};

std::size_t current_carve_out() {
  std::size_t carve_out = 0;
  if (cudaDeviceGetLimit(&carve_out, cudaLimitPersistingL2CacheSize) != cudaSuccess) return 0;
  return carve_out;
}

std::size_t remembered_carve_out() {
  std::size_t expected = kCarveOutUnknown;
  carve_out_at_start.compare_exchange_strong(expected, current_carve_out());
  return carve_out_at_start.load();
}

std::size_t window_bytes(cudaStream_t stream) {
  cudaStreamAttrValue window{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window) !=
      cudaSuccess) {
    return 0;
  }
  return window.accessPolicyWindow.num_bytes;
}

}  // namespace

void remember_l2_carve_out_at_start() { remembered_carve_out(); }

bool reset_l2_persistence_if_set(void* cuda_stream) {
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  const std::size_t at_start = remembered_carve_out();
  const std::size_t carve_out = current_carve_out();
  const bool window_set = window_bytes(stream) > 0;
  const bool kernel_set_it = window_set || carve_out != at_start;
  if (carve_out == 0 && !kernel_set_it) return false;  // no line can persist
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (window_set) {
    cudaStreamAttrValue none{};
    none.accessPolicyWindow.num_bytes = 0;
    none.accessPolicyWindow.hitRatio = 0;
    none.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    none.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none),
          "cudaStreamSetAttribute(cudaStreamAttributeAccessPolicyWindow)");
  }
  check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  if (carve_out != at_start) {
    check(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, at_start),
          "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, the carve-out at start)");
  }
  return kernel_set_it;
}
#else
void remember_l2_carve_out_at_start() {}
bool reset_l2_persistence_if_set(void*) { return false; }
#endif

}  // namespace rkt
