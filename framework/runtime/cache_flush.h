// Evicting the caches between timed samples. Part of the kernel runtime: the worker flushes
// before each timed call it makes, the judge before each baseline call.
#pragma once

#include "rkt/tensor_view.h"

namespace rkt {

/// Evicts the caches between samples: on CUDA a write larger than the L2 (sized from the
/// device, in memory of its own: cudaMalloc, outside LibTorch's allocator), queued on
/// `cuda_stream`; on the CPU a write larger than the last-level cache. The first call sizes its
/// buffer (reading sysfs or the device's properties). No LibTorch: the light worker flushes too.
void flush_caches(Device device, void* cuda_stream);

/// Reads the sizes flush_caches() needs (the CPU's last-level cache from sysfs) without
/// allocating the flush buffer: a worker calls it before its sandbox hides /sys.
void learn_cache_sizes();

}  // namespace rkt
