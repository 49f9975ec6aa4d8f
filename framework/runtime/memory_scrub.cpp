#include "framework/runtime/memory_scrub.h"

#include <malloc.h>

#if RKT_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>
#endif

namespace rkt {

void poison_host_allocations() {
  // glibc fills allocations with (value ^ 0xFF) and frees with value; 0x100 keeps the setting
  // non-zero (zero turns it off) while its low byte, 0x00, makes allocations 0xFF.
  ::mallopt(M_PERTURB, 0x100);
}

void scrub_free_device_memory(Device device, void* cuda_stream) {
#if RKT_WITH_CUDA
  if (device != Device::cuda) return;
  const auto snapshot = c10::cuda::CUDACachingAllocator::snapshot();
  for (const auto& segment : snapshot.segments) {
    std::size_t offset = 0;
    for (const auto& block : segment.blocks) {
      if (!block.allocated) {
        cudaMemsetAsync(reinterpret_cast<void*>(segment.address + offset), kScrubByte, block.size,
                        static_cast<cudaStream_t>(cuda_stream));
      }
      offset += block.size;
    }
  }
#else
  (void)device;
  (void)cuda_stream;
#endif
}

}  // namespace rkt
