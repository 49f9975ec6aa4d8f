// Which devices this process can run kernels on, and the CUDA stream kernels are given.
#pragma once

#include <chrono>
#include <string>

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

/// A scope that makes a dedicated, non-default CUDA stream current; on the CPU it does nothing.
/// Kernels must launch on `stream()`; results are read back through it alone.
class KernelStreamScope {
 public:
  explicit KernelStreamScope(Device device);
  ~KernelStreamScope();
  KernelStreamScope(const KernelStreamScope&) = delete;
  KernelStreamScope& operator=(const KernelStreamScope&) = delete;

  /// The cudaStream_t as void*, or nullptr on the CPU.
  void* stream() const { return stream_; }
  /// Waits for the work queued on the stream (not for the whole device).
  void synchronize() const;
  /// Marks the start and the end of the timed region on the stream (CUDA events; a host clock on
  /// the CPU). elapsed_milliseconds() synchronizes the stream.
  void mark_start();
  void mark_end();
  double elapsed_milliseconds() const;

 private:
  Device device_;
  void* stream_ = nullptr;
  void* stream_guard_ = nullptr;  // Restores the previously current stream on exit.
  void* start_event_ = nullptr;
  void* end_event_ = nullptr;
  double host_start_ = 0, host_end_ = 0;  // [ms]
};

/// Waits for all work on the device (every stream); no-op on the CPU.
void synchronize_device(Device device);

/// Waits for all work on the device at most `seconds`: false when it is still busy then (the
/// process should be given up: a thread stays blocked in the wait); throws on a CUDA error, as
/// synchronize_device does. True at once on the CPU. `idle_at`, when given, receives the moment
/// the device was seen idle, read by the waiting thread itself as its wait returns: the caller's
/// own wake-up, which a loaded CPU delays by milliseconds, is not in it.
bool synchronize_device_within(Device device, double seconds,
                               std::chrono::steady_clock::time_point* idle_at = nullptr);

/// "" while this process's CUDA context works; after a fault that loses it (an illegal memory
/// access, a trap: errors no later call can clear), the error's name and text. Call only where
/// CUDA is in use (it initialises CUDA otherwise).
std::string lost_cuda_context_error();

}  // namespace rkt
