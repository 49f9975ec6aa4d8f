#include "framework/isolation/device_memory_return.h"

#include "framework/isolation/kernel_library.h"
#include "framework/isolation/shared_tensors.h"
#include "framework/runtime/device_memory.h"

namespace rkt {

bool ran_out_of_device_memory(const std::string& message) {
  // cudaGetErrorString(cudaErrorMemoryAllocation) is "out of memory"; LibTorch's
  // OutOfMemoryError says "CUDA out of memory. Tried to allocate ...".
  return message.find("out of memory") != std::string::npos;
}

void give_back_device_memory(const KernelSpec& kernel) {
  if (kernel.device() != Device::cuda) return;
  drop_idle_shared_buffers(Device::cuda);
  return_released_buffers_now();
  release_cached_device_memory(Device::cuda);
}

}  // namespace rkt
