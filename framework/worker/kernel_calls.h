// How a worker runs its library's kernels. Two ways, one interface: without LibTorch
// (light_kernel_calls.cpp: view-form kernels on the CUDA runtime alone, the worker's own code) and
// with it (torch_kernel_calls.cpp, built as the plugin librkt_worker_torch.so that rkt-worker
// loads only when its library needs LibTorch: the library links it, or has a tensor-form kernel).
// A worker uses exactly one of them for its whole life, from readying the devices on.
#pragma once

#include <exception>
#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"
#include "rkt/registration.h"
#include "rkt/tensor_view.h"

namespace rkt {

/// One call's tensors, as views of the buffers the judge shares.
struct CallArguments {
  std::vector<TensorView> inputs, outputs;
};

class KernelCalls {
 public:
  virtual ~KernelCalls() = default;
  /// Readies what calls need before the sandbox closes the file system: the CPU's cache size
  /// (sysfs: without it the flush would fall back to 32 MiB and the judge's calibration, which
  /// flushes the real size, would excuse hidden kernel time), the CUDA context and stream, the
  /// device's flush buffer, the hash slots, CUPTI.
  virtual void prepare_devices(const std::vector<KernelSpec*>& kernels) = 0;
  /// One call (a `call` request), checked for outputs final at return; traced when asked.
  virtual wire::Reply call(const KernelSpec& kernel, const CallArguments& arguments,
                           bool trace_off_stream_work) = 0;
  /// Timed calls (a `measure` request) over the argument sets in turn.
  virtual wire::Reply measure(const KernelSpec& kernel, const std::vector<CallArguments>& sets,
                              const wire::Request& request) = 0;
  /// Waits for all work on every device this process uses.
  virtual void synchronize_devices() = 0;
  /// An exception's message as the judge should read it (LibTorch's without its backtrace).
  virtual std::string describe_exception(const std::exception& error) const = 0;
};

/// The calls of a worker without LibTorch: view-form kernels only.
KernelCalls& light_kernel_calls();

/// The plugin's one exported function: `KernelCalls* rkt_torch_kernel_calls()`.
inline constexpr const char* kTorchKernelCallsSymbol = "rkt_torch_kernel_calls";
/// The plugin's file name, beside the rkt-worker executable.
inline constexpr const char* kTorchKernelCallsPlugin = "librkt_worker_torch.so";

}  // namespace rkt
