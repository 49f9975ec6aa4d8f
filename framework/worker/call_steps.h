// The steps of a worker's calls that do not depend on how the kernel is run (kernel_calls.h): the
// replies a call's checks produce, the timed loop of a measure request, and the CUDA set-up before
// the sandbox. No LibTorch: both the light worker and the LibTorch plugin use them.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "framework/runtime/cuda_runtime_device.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/wire/worker_protocol.h"
#include "framework/worker/kernel_calls.h"
#include "rkt/registration.h"

namespace rkt {

/// The reply for outputs that were not final at return (or a device that stayed busy).
wire::Reply not_final_reply(const FinalAtReturn& final_at_return);

/// Thrown out of a peak-memory measurement when the device stays busy after a call: the
/// measurement's closing device synchronisation would wait for ever (a persistent kernel).
struct DeviceBusyAfterReturn {
  FinalAtReturn verdict;
};

/// A CUDA call's reply from its final-at-return check: the device time from `call_start`, the
/// trace's reading; not ok (not_final_reply) when the outputs were not final.
wire::Reply cuda_call_reply(const FinalAtReturn& final_at_return,
                            std::chrono::steady_clock::time_point call_start);

/// A measure request's timed loop on `scope`: warm-up calls for request.warmup_milliseconds, then
/// request.samples timed calls, each after the L2 persistence reset and the cache flush asked
/// for; on CUDA the last one's outputs (its set's preallocated outputs, what a caller reads) are
/// checked for being final at return (at the benchmark's size, where deferring work would pay).
/// `call(i)` runs argument set i of `sets`.
wire::Reply measure_samples(const KernelSpec& kernel, const wire::Request& request,
                            const std::vector<CallArguments>& sets, LightStreamScope& scope,
                            const std::function<void(std::size_t)>& call);

/// CUDA's set-up before the sandbox on `scope`'s stream: the flush buffer, the hash slots and
/// kernel, the default memory pool (kernels' cudaMallocAsync scratch), the events, and CUPTI's
/// start (off_stream_work_trace.h). Prints to stderr what cannot be traced.
void prepare_cuda_calls(LightStreamScope& scope);

/// What no longer works on the devices once the sandbox is in place ("" when all does): checked
/// with a cudaMallocAsync on a stream of its own, since kernels use it for scratch.
std::string check_devices_in_sandbox(const std::vector<KernelSpec*>& kernels);

/// True when one of `kernels` runs on CUDA and a CUDA device is visible.
bool uses_cuda_device(const std::vector<KernelSpec*>& kernels);

}  // namespace rkt
