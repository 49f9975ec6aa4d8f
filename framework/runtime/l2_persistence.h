// L2 persistence between timed samples. Since Ampere a kernel can mark memory as persisting in
// the L2 (a stream's cudaStreamAttributeAccessPolicyWindow, or a launch attribute, inside a
// carve-out set by cudaLimitPersistingL2CacheSize): the lines survive the cache flush between
// samples, so a kernel whose inputs fit in the L2 is timed reading them from cache (llm.c PR #851:
// 3530 GB/s reported on an L40S whose memory peaks at 864 GB/s). Before each timed sample the
// worker takes the persistence away again when a kernel set it, so the flush that follows evicts
// the lines, and the benchmark carries a note (docs/threat_model.md).
#pragma once

namespace rkt {

/// Remembers the persisting-L2 carve-out this process's context came with, before any kernel ran
/// (the worker calls it once its devices are ready, before the first call). A device may come
/// with one: the H100 of run 45 reported "the kernel set a persisting-L2 carve-out" for every
/// honest kernel while the check compared with 0 (MPS sets a default with
/// CUDA_DEVICE_DEFAULT_PERSISTING_L2_CACHE_PERCENTAGE_LIMIT). Without a call, the first reset
/// remembers what it finds then. Nothing without CUDA.
void remember_l2_carve_out_at_start();

/// Before a timed sample: when a persisting-L2 carve-out exists (lines may persist in it: a
/// stream's window or a launch attribute marks them), waits for `cuda_stream`, clears its access
/// policy window, returns every persisting line to normal (cudaCtxResetPersistingL2Cache) and
/// puts the carve-out back to what the process started with, so the cache flush that follows
/// evicts what the kernel kept. Two cheap host queries when there is no carve-out. Returns
/// whether the kernel set something (a carve-out other than the start's, or a window on
/// `cuda_stream`): the benchmark's note; false without CUDA. Throws naming the CUDA call that
/// failed.
bool reset_l2_persistence_if_set(void* cuda_stream);

}  // namespace rkt
