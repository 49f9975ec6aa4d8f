// A judge's device memory when its GPU runs short: telling a failure for want of memory from
// others, and giving back what the judge keeps between cases (idle shared buffers, LibTorch's
// cached blocks) so that another judge, or this one's next try, can have it
// (framework/timing/device_memory_wanted.h says who asks).
#pragma once

#include <string>

#include "rkt/registration.h"

namespace rkt {

/// True when `message` is a failure for want of device memory: CUDA's "out of memory"
/// (cudaErrorMemoryAllocation, as the judge's own allocations, the kernel's and the drawing of
/// inputs report it) or LibTorch's "CUDA out of memory" (a reference, a baseline).
bool ran_out_of_device_memory(const std::string& message);

/// Gives back the device memory this judge keeps on `kernel`'s device between cases: its idle
/// shared buffers (the worker lets go of them first), the blocks LibTorch caches in the worker
/// (a LibTorch-linked kernel's) and in the judge. Starts no worker. Nothing on the CPU. Call
/// between cases, with no case's tensors alive.
void give_back_device_memory(const KernelSpec& kernel);

}  // namespace rkt
