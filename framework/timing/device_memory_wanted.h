// A judge that ran out of GPU memory while other judges shared the GPU asks them for it.
//
// Judges that share a GPU (rkt eval, rkt serve, the main job's shards) each keep device memory
// between cases: idle shared buffers for the next call (framework/isolation/idle_buffer_pool.h)
// and LibTorch's cached blocks. On the H100 of run 46 four shards of `rkt run --kernel cuda` held
// so much that ten honest kernels failed with "out of memory". A case that runs out is run again
// with the GPU alone (framework/supervision/device_memory_retry.h); before that it marks the
// GPU's lease with a DeviceMemoryWanted, and every judge that sees the mark gives its kept memory
// back at its next case boundary, before it lets go of its share. The mark is a file beside the
// lease's ("<lease>.memory-<pid>"), gone with its holder; one left by a dead process is ignored.
#pragma once

#include <string>

#include "rkt/tensor_view.h"

namespace rkt {

/// Marks `device`'s lease as wanted for its memory while this lives (nothing on the CPU).
class DeviceMemoryWanted {
 public:
  explicit DeviceMemoryWanted(Device device);
  /// The lease named `key` (a test's own, without a GPU).
  explicit DeviceMemoryWanted(const std::string& key);
  ~DeviceMemoryWanted();
  DeviceMemoryWanted(const DeviceMemoryWanted&) = delete;
  DeviceMemoryWanted& operator=(const DeviceMemoryWanted&) = delete;

 private:
  std::string mark_;  ///< The mark's file; "" when nothing was marked.
};

/// True when a live process other than this one marks `device`'s lease as wanted for its memory
/// (false on the CPU).
bool device_memory_wanted_by_another(Device device);
/// The same for the lease named `key`.
bool device_memory_wanted_by_another(const std::string& key);

}  // namespace rkt
