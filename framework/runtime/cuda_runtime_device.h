// The device through the CUDA runtime alone, without LibTorch: what the light worker (a kernel
// library that needs no LibTorch) runs kernels with, and the waits every caller shares.
#pragma once

#include <chrono>
#include <string>

#include "rkt/tensor_view.h"

namespace rkt {

/// True when the CUDA runtime sees a device (cudaGetDeviceCount); false in a build without CUDA.
bool cuda_device_visible();

/// Waits for all work on the device (every stream) with cudaDeviceSynchronize; throws on a CUDA
/// error. No-op on the CPU.
void synchronize_device(Device device);

/// Waits for all work on the device at most `seconds`: false when it is still busy then (the
/// process should be given up: a thread stays blocked in the wait); throws on a CUDA error. True
/// at once on the CPU. `idle_at`, when given, receives the moment the device was seen idle, read
/// by the waiting thread itself as its wait returns: the caller's own wake-up, which a loaded CPU
/// delays by milliseconds, is not in it.
bool synchronize_device_within(Device device, double seconds,
                               std::chrono::steady_clock::time_point* idle_at = nullptr);

/// "" while this process's CUDA context works; after a fault that loses it (an illegal memory
/// access, a trap: errors no later call can clear), the error's name and text. Call only where
/// CUDA is in use (it initialises CUDA otherwise).
std::string lost_cuda_context_error();

/// The stream a kernel is given and the clock of its calls, through the CUDA runtime alone: one
/// non-default CUDA stream of this process (created once, non-blocking, so work a kernel puts on
/// the legacy default stream is not ordered before our read-back) and CUDA events; on the CPU a
/// host clock. Nothing is made current: the kernel is handed the stream. The worker without
/// LibTorch uses it as it is; KernelStreamScope (device_support.h) gives it LibTorch's stream.
class LightStreamScope {
 public:
  explicit LightStreamScope(Device device);
  virtual ~LightStreamScope();
  LightStreamScope(const LightStreamScope&) = delete;
  LightStreamScope& operator=(const LightStreamScope&) = delete;

  /// The cudaStream_t as void*, or nullptr on the CPU.
  void* stream() const { return stream_; }
  /// Waits for the work queued on the stream (not for the whole device).
  void synchronize() const;
  /// Marks the start and the end of the timed region on the stream (CUDA events; a host clock on
  /// the CPU). elapsed_milliseconds() synchronizes the stream.
  void mark_start();
  void mark_end();
  double elapsed_milliseconds() const;  // [ms]

 protected:
  /// A scope on `cuda_stream` (a cudaStream_t) rather than this process's own.
  LightStreamScope(Device device, void* cuda_stream);

 private:
  void record(void*& event);  // on the stream; created on first use (CUDA only)

  Device device_;
  void* stream_ = nullptr;
  void* start_event_ = nullptr;
  void* end_event_ = nullptr;
  double host_start_ = 0, host_end_ = 0;  // [ms]
};

}  // namespace rkt
