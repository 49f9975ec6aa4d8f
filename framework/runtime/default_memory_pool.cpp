#include "framework/runtime/default_memory_pool.h"

#include <cstdint>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {
#if RKT_WITH_CUDA
namespace {

std::uint64_t pool_bytes(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  std::uint64_t bytes = 0;
  if (pool != nullptr && cudaMemPoolGetAttribute(pool, attribute, &bytes) != cudaSuccess) bytes = 0;
  return bytes;
}

}  // namespace

DefaultPoolWatermark::DefaultPoolWatermark() {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetDefaultMemPool(&pool, device) != cudaSuccess) {
    return;
  }
  pool_ = pool;
  std::uint64_t zero = 0;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
  before_ = static_cast<double>(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent));
}

double DefaultPoolWatermark::bytes_added() const {
  const auto high = static_cast<double>(
      pool_bytes(static_cast<cudaMemPool_t>(pool_), cudaMemPoolAttrUsedMemHigh));
  return high > before_ ? high - before_ : 0;
}
#else
DefaultPoolWatermark::DefaultPoolWatermark() = default;
double DefaultPoolWatermark::bytes_added() const { return 0; }
#endif

}  // namespace rkt
