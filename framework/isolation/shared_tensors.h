// Tensors in memory the judge shares with a worker: a memfd on the CPU, a cudaMalloc allocation
// exported through a CUDA IPC handle on a GPU. The judge keeps the tensor; the worker maps the
// same memory, so outputs it writes and inputs it changes are seen by the judge directly.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "framework/isolation/redzones.h"
#include "framework/wire/worker_protocol.h"

namespace rkt {

/// A new contiguous tensor in shared memory (contents undefined), with redzones around it
/// (framework/isolation/redzones.h) and its first element where `placement` puts it.
at::Tensor allocate_shared_tensor(at::IntArrayRef sizes, c10::ScalarType dtype, Device device,
                                  const BufferPlacement& placement = {});

/// A shared copy of `tensor` on `device`.
at::Tensor shared_copy(const at::Tensor& tensor, Device device, const BufferPlacement& placement = {});

/// Where a tensor lies: its buffer and how to share it.
struct SharedLocation {
  wire::SharedBuffer buffer;
  int fd = -1;  ///< CPU buffers: the memfd to send (owned by the allocation).
  std::uint64_t offset_bytes = 0;
};

/// The shared buffer holding `tensor`'s memory, or nothing when it is not shared memory.
std::optional<SharedLocation> locate_shared(const at::Tensor& tensor);

/// How the worker finds `tensor` inside `location`'s buffer.
wire::TensorRef tensor_reference(const at::Tensor& tensor, const SharedLocation& location);

/// Buffers freed since the last call (their memory is held until the worker has let go of
/// them: CUDA allocations are freed by release_confirmed()).
std::vector<std::uint64_t> take_released_buffers();
/// The worker has unmapped every buffer take_released_buffers() returned (or it has died).
void release_confirmed();

/// Frees every idle buffer this judge keeps on `device` for reuse (idle_buffer_pool.h): they
/// join the released buffers, whose CUDA memory goes back once the worker has let go of them.
/// The bytes given up.
std::uint64_t drop_idle_shared_buffers(Device device);

}  // namespace rkt
