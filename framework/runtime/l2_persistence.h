// L2 persistence between timed samples. Since Ampere a kernel can mark memory as persisting in
// the L2 (a stream's cudaStreamAttributeAccessPolicyWindow, or a launch attribute, inside a
// carve-out set by cudaLimitPersistingL2CacheSize): the lines survive the cache flush between
// samples, so a kernel whose inputs fit in the L2 is timed reading them from cache (llm.c PR #851:
// 3530 GB/s reported on an L40S whose memory peaks at 864 GB/s). Before each timed sample the
// worker takes the persistence away again when a kernel set it, so the flush that follows evicts
// the lines, and the benchmark carries a note (docs/threat_model.md).
#pragma once

namespace rkt {

/// When persistence is in force (a persisting-L2 carve-out set on the device, or an access
/// policy window on `cuda_stream`: two cheap host queries), waits for `cuda_stream`, clears its
/// window, returns every persisting line to normal (cudaCtxResetPersistingL2Cache) and sets the
/// carve-out to 0, so the cache flush that follows evicts what the kernel kept. Returns whether
/// it reset anything; false without CUDA. Throws naming the CUDA call that failed.
bool reset_l2_persistence_if_set(void* cuda_stream);

}  // namespace rkt
