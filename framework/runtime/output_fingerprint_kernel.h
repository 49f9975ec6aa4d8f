// The GPU half of the outputs-final-at-return check: a hash of a buffer's bytes, computed by a
// small kernel queued on a stream. No CUDA headers here, so C++ files can call it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rkt {

/// Queues on `cuda_stream` (a cudaStream_t) a kernel that adds a hash of the `bytes` bytes at
/// `data` into `*device_slot` (device memory the caller zeroed in stream order). The hash sums a
/// mix of each 32-bit word with its position, so a change of any byte changes it with
/// overwhelming probability, whatever order the threads add in. Returns the launch's
/// cudaError_t as an int (0: queued).
int enqueue_byte_hash(const void* data, std::size_t bytes, std::uint64_t* device_slot,
                      void* cuda_stream);

}  // namespace rkt
