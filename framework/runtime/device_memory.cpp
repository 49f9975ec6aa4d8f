#include "framework/runtime/device_memory.h"

#include <cstdint>

#if RKT_WITH_CUDA
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "framework/runtime/default_memory_pool.h"

namespace rkt {

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
    const DefaultPoolWatermark pool;
    call();
    c10::cuda::device_synchronize();
    const auto peak = allocator::getDeviceStats(index).allocated_bytes[kAggregate].peak;
    return static_cast<double>(peak - before) + pool.bytes_added();
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
