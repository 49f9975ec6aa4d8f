// Which devices this process can run kernels on, and the CUDA stream kernels are given.
#pragma once

#include <string>

#include "framework/runtime/cuda_runtime_device.h"
#include "rkt/tensor_view.h"

namespace rkt {

/// True when kernels for `device` can run here.
bool device_available(Device device);
/// Why `device` is unavailable ("" when it is available), e.g. "no CUDA device is visible".
std::string device_unavailable_reason(Device device);

/// What names this process's `device` machine-wide, whatever CUDA_VISIBLE_DEVICES numbered it:
/// "gpu-<UUID>" for the current CUDA device, "" on the CPU or where no CUDA device is visible.
std::string device_identity(Device device);

/// Creates this process's CUDA context and LibTorch's CUDA state now, when a GPU is visible (what
/// the first CUDA call would otherwise do later): a judge started ahead does it while it waits for
/// its work (framework/supervision/started_ahead.h). Does nothing without a GPU.
void ready_cuda_context();

/// A LightStreamScope on a dedicated, non-default CUDA stream of LibTorch's pool, made LibTorch's
/// current stream for the scope's life (so that ATen operators a kernel calls, and the caching
/// allocator's blocks, go with it); on the CPU it does nothing. Kernels must launch on
/// `stream()`; results are read back through it alone.
class KernelStreamScope : public LightStreamScope {
 public:
  explicit KernelStreamScope(Device device);
  ~KernelStreamScope() override;

 private:
  void* stream_guard_ = nullptr;  // Restores the previously current stream on exit.
};

/// LibTorch's current CUDA stream (a cudaStream_t as void*) for `device`; nullptr on the CPU.
void* current_cuda_stream(Device device);

}  // namespace rkt
