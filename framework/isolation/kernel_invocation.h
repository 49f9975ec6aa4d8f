// Calling a registered kernel: outputs allocated and poisoned, the stream chosen, errors caught.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/isolation/output_signatures.h"
#include "framework/isolation/redzones.h"
#include "framework/runtime/kernel_execution.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// Fills `output` with the poison: NaN for floating types, the most negative value otherwise.
void poison_output(const at::Tensor& output);

/// Tensors of `signatures` on `device`, every floating element NaN and every integer element
/// the most negative value, so an element the kernel never writes cannot pass as a result.
/// Each lies in a guarded buffer (redzones.h) placed as `placement` says.
std::vector<at::Tensor> allocate_poisoned_outputs(const std::vector<OutputSignature>& signatures,
                                                  Device device, const BufferPlacement& placement = {});

/// What one kernel call produced and did.
struct KernelRun {
  std::vector<at::Tensor> outputs;
  /// ATen operators dispatched (on any thread) while the kernel function ran: name -> count.
  std::map<std::string, int> operators;
  /// Time of the call on the kernel's stream (CUDA events), or host time on the CPU.
  double stream_milliseconds = 0;  // [ms]
  /// When the kernel function was entered (after the scrub and poison work had completed).
  std::chrono::steady_clock::time_point call_start;
  /// Isolated mode: device memory the call added at its peak, measured by the worker, with the
  /// preallocated outputs added (-1 on the CPU or in-process).
  double peak_memory_bytes = -1;  // [bytes]
  /// Isolated mode on CUDA: entering the kernel to a device-wide synchronisation, measured by the
  /// worker (-1 when not measured).
  double device_milliseconds = -1;  // [ms]
  /// A traced call on CUDA: how far its work off the given stream outlasted it, on the GPU's
  /// clock, or std::nullopt with `off_stream_untraced` saying why it was not read
  /// (framework/runtime/off_stream_work_trace.h).
  std::optional<OffStreamOverrun> off_stream;
  std::string off_stream_untraced;
};

/// Calls `kernel` on `inputs` (already on the kernel's device) and returns its outputs once they
/// are complete on the stream the kernel was given (that stream only: never a device-wide
/// synchronisation). Before the call, free device memory is scrubbed to NaN and view-form outputs
/// are poisoned. Every input and output lies in a guarded buffer (inputs that do not are staged
/// through one, and copied back so that a kernel writing its inputs is seen): its redzones are
/// armed before the call and checked after it, and a changed byte throws OutOfBoundsWrite
/// naming the buffer, the side and the offsets. Outputs are placed as `output_placement` says.
/// With `trace_off_stream_work`, a CUDA call's device work is traced (KernelRun::off_stream).
/// Exceptions from the kernel propagate.
KernelRun invoke_kernel(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                        const std::vector<OutputSignature>& signatures,
                        const BufferPlacement& output_placement = {},
                        bool trace_off_stream_work = false);

/// Copies what the kernel left in the buffers `staged` (copies of `inputs` the kernel was handed
/// where an input was not in a guarded buffer of its own) back into `inputs`, so that a kernel
/// that writes its inputs is seen.
void return_staged_inputs(const std::vector<at::Tensor>& inputs, const std::vector<at::Tensor>& staged);

/// Thrown by a CUDA call whose outputs changed after the kernel returned, or whose device stayed
/// busy after its stream completed (framework/runtime/outputs_final_at_return.h).
struct OutputsNotFinalAtReturn : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws OutputsNotFinalAtReturn for `failure` (check_outputs_final's), the changed output
/// named by `task_id`'s output names; does nothing when `failure` is empty.
void throw_if_not_final(const std::string& task_id, const std::string& failure, int changed_output);

/// How a failed kernel call reads in a case message: "the kernel threw: <what>", or the
/// harness's own finding for an OutOfBoundsWrite ("out-of-bounds write: ...") or an
/// OutputsNotFinalAtReturn ("outputs not final at return: ...").
std::string describe_call_failure(const std::exception& error);

/// Runs `task`'s reference in float64 on copies of `inputs` made on `device` (index inputs keep
/// their dtype). Outputs stay on `device`.
std::vector<at::Tensor> run_reference_float64(const TaskSpec& task,
                                              const std::vector<at::Tensor>& inputs,
                                              Device device);

}  // namespace rkt
