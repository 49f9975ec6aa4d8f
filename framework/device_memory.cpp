#include "framework/device_memory.h"

#if RKT_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace rkt {

double peak_bytes_added(Device device, const std::function<void()>& call) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) {
    namespace allocator = c10::cuda::CUDACachingAllocator;
    constexpr auto kAggregate = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    c10::cuda::device_synchronize();
    const c10::DeviceIndex index = c10::cuda::current_device();
    allocator::resetPeakStats(index);
    const auto before = allocator::getDeviceStats(index).allocated_bytes[kAggregate].current;
    call();
    c10::cuda::device_synchronize();
    const auto peak = allocator::getDeviceStats(index).allocated_bytes[kAggregate].peak;
    return static_cast<double>(peak - before);
  }
#endif
  call();
  (void)device;
  return -1;
}

}  // namespace rkt
