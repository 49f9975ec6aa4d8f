// Scrubbing memory a kernel could allocate from, so that an output it never writes cannot hold
// a value left behind by the reference (the "recycled output" trick).
#pragma once

#include "rkt/tensor_view.h"

namespace rkt {

/// The byte every scrubbed or freshly allocated byte holds: 0xFF makes float32, float64, float16
/// and bfloat16 NaN, and integers -1.
inline constexpr unsigned char kScrubByte = 0xFF;

/// Host memory: from now on glibc fills every block it hands out with kScrubByte and every block
/// it takes back with zeros (mallopt M_PERTURB). Call once at process start.
void poison_host_allocations();

/// Device memory: fills every free block of LibTorch's CUDA caching allocator with kScrubByte,
/// ordered on `cuda_stream`, so a tensor the kernel allocates starts as NaN. No-op on the CPU.
void scrub_free_device_memory(Device device, void* cuda_stream);

}  // namespace rkt
