// Outputs final at return. A kernel's outputs must be complete, in the order of its stream, when
// its function returns: a caller reads them on that stream next. Work left on another stream, in
// a host callback, in a graph launched elsewhere or in a kernel still running would race with
// that reader (the 2026 GPU MODE nvfp4 group-GEMM exploit: calls returned while one merged
// kernel was still writing). So each CUDA call's outputs are hashed on the GPU in stream order
// right after the kernel returns, before any host synchronisation, and again after a
// device-wide synchronisation; any difference fails the case (docs/threat_model.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/runtime/off_stream_work_trace.h"
#include "rkt/tensor_view.h"

namespace rkt {

/// An output's bytes as the hash reads them: contiguous CUDA memory, or nothing to hash (a CPU
/// output, an undefined or strided one) with `on_cuda` false. No LibTorch here: the light worker
/// hashes views, a LibTorch caller converts its tensors (torch_bridge.h, hashed_buffers).
struct HashedBuffer {
  const void* data = nullptr;
  std::size_t bytes = 0;  // [bytes]
  bool on_cuda = false;
};
HashedBuffer hashed_buffer(const TensorView& view);
std::vector<HashedBuffer> hashed_buffers(const std::vector<TensorView>& views);

/// Hashes of a call's outputs taken on the GPU in stream order. CPU outputs get none (0).
class OutputFingerprints {
 public:
  /// Queues on `cuda_stream` one hash per CUDA buffer of `outputs`: it sees what the stream's
  /// earlier work wrote and nothing queued after it. Waits for nothing. Throws when more than
  /// kMaxOutputs outputs are given or a launch fails.
  void enqueue(const std::vector<HashedBuffer>& outputs, void* cuda_stream);
  /// Waits for `cuda_stream` and returns the hashes queued by the last enqueue, one per output.
  std::vector<std::uint64_t> read(void* cuda_stream);

  static constexpr std::size_t kMaxOutputs = 64;  // [tensors] a task's outputs, at most

 private:
  std::vector<bool> on_cuda_;
};

/// Allocates the hash slots (device memory and a pinned host copy) and loads the hash kernel now:
/// a worker calls it before entering its sandbox, where pinned allocations may be refused, and
/// before its first call, whose hash at return must not wait for a module to load.
void prepare_output_fingerprints();

/// The first output of a call that changed after it returned.
struct OutputChange {
  int output = -1;      ///< its index; -1: none changed
  std::string message;  ///< names it as output_placeholder(output) does, and both hashes
};

/// Compares `at_return` with the outputs' hashes now. Call after a device-wide synchronisation.
OutputChange outputs_changed_after_return(const std::vector<HashedBuffer>& outputs,
                                          const std::vector<std::uint64_t>& at_return,
                                          void* cuda_stream);

/// Whether a call's outputs were final at return.
struct FinalAtReturn {
  std::string failure;  ///< "" when they were; else why, naming a changed output by placeholder
  bool device_busy = false;  ///< the device never became idle: the process cannot be trusted again
  int changed_output = -1;   ///< the first output that changed, or -1
  /// When the device-wide synchronisation completed (before the second hash).
  std::chrono::steady_clock::time_point device_idle_at;
  /// A traced call: how far its work off the stream outlasted it (GPU clock), or std::nullopt
  /// with `off_stream_untraced` saying why it could not be read.
  std::optional<OffStreamOverrun> off_stream;
  std::string off_stream_untraced;
};

/// After a call's stream completed: waits for the whole device (at most
/// defaults::kDeviceIdleAfterReturnSeconds), hashes `outputs` (what the caller reads) again
/// against `at_return`, the hashes taken in stream order at return, and reads `trace`'s overrun
/// when the call was traced (nullptr: not). With no hashes (a CPU call) it only notes the time.
FinalAtReturn check_outputs_final(const std::vector<std::uint64_t>& at_return,
                                  OffStreamWorkTrace* trace,
                                  const std::vector<HashedBuffer>& outputs, void* cuda_stream);

/// The message for a device still busy `seconds` after the call's stream completed.
std::string device_busy_after_return_message(double seconds);

/// How a worker's message names an output ("output #<index>"): the worker knows no task, so the
/// judge puts the task's name for it with replace_output_placeholder.
std::string output_placeholder(std::size_t index);
/// `message` with output_placeholder(index) replaced by `name` (e.g. "output 'y'").
std::string replace_output_placeholder(std::string message, std::size_t index,
                                       const std::string& name);

}  // namespace rkt
