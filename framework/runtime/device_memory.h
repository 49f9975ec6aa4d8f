// Peak device memory one call adds above what is already allocated (its resident inputs).
#pragma once

#include <functional>

#include "rkt/tensor_view.h"

namespace rkt {

/// Peak bytes `call` adds above what was allocated before it, on a GPU: the peak of LibTorch's
/// CUDA caching allocator plus the high-water mark of the device's default memory pool (where
/// cudaMallocAsync allocates a kernel's scratch). Plain cudaMalloc is not seen. -1 on the CPU,
/// where memory is not measured.
double peak_bytes_added(Device device, const std::function<void()>& call);

/// Returns the blocks LibTorch's CUDA caching allocator holds unused to the device (after the
/// device finished with them), so that what is measured next starts from a pool as a fresh
/// process holds it. Nothing on the CPU.
void release_cached_device_memory(Device device);

}  // namespace rkt
