// A case that failed for want of GPU memory while other judges shared the GPU is run once more
// with the GPU alone. Judges that share a GPU (rkt eval, rkt serve, sharded main jobs) each hold
// device memory, and on the H100 of run 46 four shards of `rkt run --kernel cuda` ran ten honest
// kernels out of it: "cudaMalloc of a shared buffer failed: out of memory", LibTorch's "CUDA out
// of memory" for a reference. Such a failure says nothing of the kernel. The second run gives
// back this judge's kept memory, marks the lease as wanted for its memory (the other judges give
// back theirs before they let go of their shares: framework/timing/device_memory_wanted.h) and
// holds the lease alone. Its outcome is the case's; the record says the first run's failure. A
// kernel gains nothing by feigning the shortage: the second run must pass on its own.
#pragma once

#include <functional>

#include "framework/cases/case_outcome.h"

namespace rkt {

/// `first` when it is not a failure for want of device memory; otherwise what `run_alone` (the
/// same case, run with the GPU alone) returns, its message saying why it ran twice.
CaseOutcome run_again_alone_if_short_of_memory(CaseOutcome first,
                                               const std::function<CaseOutcome()>& run_alone);

}  // namespace rkt
