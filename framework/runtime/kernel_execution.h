// Running a kernel once on tensors it was handed: the steps shared by the worker (isolated mode)
// and the judge's in-process mode. Part of the kernel runtime library: no judge code.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/runtime/device_support.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "rkt/registration.h"

namespace rkt {

/// An exception's message without LibTorch's C++ backtrace.
std::string describe_exception(const std::exception& error);

/// What one kernel call did.
struct ExecutedCall {
  /// ATen operators dispatched (on any thread) while the kernel function ran: name -> count.
  std::map<std::string, int> operators;
  /// Time of the call on the kernel's stream (CUDA events), or host time on the CPU.
  double stream_milliseconds = 0;  // [ms]
  /// When the kernel function was entered (after the scrub had completed).
  std::chrono::steady_clock::time_point call_start;
  /// Tensor-form kernels: the tensors the kernel returned.
  std::vector<at::Tensor> returned;
  /// A hash of each output (view form: `outputs`; tensor form: `returned`) taken on the GPU in
  /// stream order right after the kernel function returned (0 for CPU outputs;
  /// outputs_final_at_return.h). Compare with check_outputs_final after a device-wide wait.
  std::vector<std::uint64_t> fingerprints_at_return;
  /// The trace of the call's device work, when the caller asked for one (CUDA only); read by
  /// check_outputs_final once the device is idle.
  std::unique_ptr<OffStreamWorkTrace> off_stream_trace;
};

/// Calls `kernel` on `inputs` with `outputs` preallocated (view form; ignored by tensor-form
/// kernels, which return theirs) on `scope`'s stream: free device memory is scrubbed to NaN
/// first, ATen operators are observed, and the call is complete on that stream (that stream only)
/// when this returns. With `trace_off_stream_work` (CUDA), the call's device work is traced
/// (off_stream_work_trace.h) for check_outputs_final. Exceptions from the kernel propagate.
ExecutedCall execute_kernel(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                            const std::vector<at::Tensor>& outputs, KernelStreamScope& scope,
                            bool trace_off_stream_work = false);

/// check_outputs_final (outputs_final_at_return.h) for `executed`, whose caller reads `outputs`
/// (the preallocated outputs, or the returned ones).
FinalAtReturn check_outputs_final(const ExecutedCall& executed,
                                  const std::vector<at::Tensor>& outputs, KernelStreamScope& scope);

/// Copies what a tensor-form kernel returned into the preallocated `outputs`, on the current
/// stream; throws std::runtime_error naming a count, shape or dtype that differs from the task's.
void copy_returned_outputs(const std::vector<at::Tensor>& returned,
                           const std::vector<at::Tensor>& outputs);

}  // namespace rkt
