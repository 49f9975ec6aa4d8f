#include "framework/runtime/device_memory.h"

#include <cstdint>

#if RKT_WITH_CUDA
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>
#endif

namespace rkt {
#if RKT_WITH_CUDA
namespace {

// The device's default memory pool: where cudaMallocAsync allocates (kernels' scratch buffers),
// outside LibTorch's caching allocator.
cudaMemPool_t default_pool(int device) {
  cudaMemPool_t pool = nullptr;
  return cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess ? pool : nullptr;
}

std::uint64_t pool_bytes(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  std::uint64_t bytes = 0;
  if (pool != nullptr && cudaMemPoolGetAttribute(pool, attribute, &bytes) != cudaSuccess) bytes = 0;
  return bytes;
}

}  // namespace
#endif

double peak_bytes_added(Device device, const std::function<void()>& call) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) {
    namespace allocator = c10::cuda::CUDACachingAllocator;
    constexpr auto kAggregate = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);  // The allocator must exist.
    c10::cuda::device_synchronize();
    const c10::DeviceIndex index = c10::cuda::current_device();
    allocator::resetPeakStats(index);
    const auto before = allocator::getDeviceStats(index).allocated_bytes[kAggregate].current;
    cudaMemPool_t pool = default_pool(index);
    std::uint64_t zero = 0;
    if (pool != nullptr) cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero);
    const std::uint64_t pool_before = pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent);
    call();
    c10::cuda::device_synchronize();
    const auto peak = allocator::getDeviceStats(index).allocated_bytes[kAggregate].peak;
    const std::uint64_t pool_high = pool_bytes(pool, cudaMemPoolAttrUsedMemHigh);
    const std::uint64_t pool_added = pool_high > pool_before ? pool_high - pool_before : 0;
    return static_cast<double>(peak - before) + static_cast<double>(pool_added);
  }
#endif
  call();
  (void)device;
  return -1;
}

void release_cached_device_memory(Device device) {
#if RKT_WITH_CUDA
  if (device == Device::cuda && at::globalContext().hasCUDA()) {
    c10::cuda::device_synchronize();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
#endif
  (void)device;
}

}  // namespace rkt
