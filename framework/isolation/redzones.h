// Redzones: guard bytes around every buffer a kernel is handed, and where the buffer's data sits
// in its allocation (aligned, misaligned on purpose, or ending at an inaccessible page).
//
// Every kernel-facing allocation (shared with a worker, or the judge's own in-process) is laid
// out as [redzone before | data | redzone after]. Before each call the redzones get a fresh
// pattern; after it any changed byte is an out-of-bounds write, named by buffer, side and offset.
// On the CPU a buffer may instead end where an inaccessible page begins, so a read past its end
// faults (the out_of_bounds case). The misaligned_pointers case moves the data off its alignment.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rkt/registration.h"

namespace rkt {

/// Where a buffer's first element sits in its allocation.
struct BufferPlacement {
  /// Bytes past a kBufferAlignmentBytes-aligned address (0: aligned).
  std::int64_t misalignment_bytes = 0;
  /// CPU only: the data ends where an inaccessible page begins (the redzone after it is only the
  /// padding that keeps the start aligned), so a read past the end faults.
  bool inaccessible_page_after = false;
  /// With inaccessible_page_after: the alignment the data's first element keeps.
  std::int64_t start_alignment_bytes = 1;
  /// false: no redzones, the allocation is exactly the data (the sanitizer cases: memcheck
  /// checks accesses against allocations, so a redzone would hide an access just past the end).
  bool redzones = true;
};

/// A buffer's layout, in bytes from the allocation's first byte (which must be aligned to
/// kBufferAlignmentBytes; with an inaccessible page after, to the page size).
struct GuardedLayout {
  std::int64_t data_offset = 0;  ///< The redzone before the data is [0, data_offset).
  std::int64_t data_bytes = 0;
  std::int64_t total_bytes = 0;  ///< The redzone after the data ends here.
  bool inaccessible_page_after = false;
};

GuardedLayout guarded_layout(std::int64_t data_bytes, const BufferPlacement& placement);

/// What a buffer on `device` keeps of `placement`: GPU memory has no inaccessible page after it
/// (reads past the end are the sanitizer cases' to find there).
BufferPlacement placement_on(Device device, BufferPlacement placement);

/// The host's page size in bytes.
std::int64_t page_bytes();

/// Records the redzones of an allocation whose data is at `data` (removed by forget_redzones).
void register_redzones(const void* data, const GuardedLayout& layout, Device device);
void forget_redzones(const void* data);

/// A new contiguous tensor in a guarded allocation of the judge's own (in-process kernels).
at::Tensor guarded_empty(at::IntArrayRef sizes, c10::ScalarType dtype, Device device,
                         const BufferPlacement& placement = {});
/// A guarded copy of `tensor` on `device`.
at::Tensor guarded_copy(const at::Tensor& tensor, Device device, const BufferPlacement& placement = {});

/// Whether `tensor`'s first element is the data of a guarded allocation.
bool has_redzones(const at::Tensor& tensor);

/// Fills the redzones of every guarded tensor among `tensors` with a fresh pattern.
void arm_redzones(const std::vector<at::Tensor>& tensors);

/// Thrown by a kernel call whose redzones changed.
struct OutOfBoundsWrite : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How a case message names a task's buffer: "input 'x'", "output 'y'" (by index when the task
/// is not registered: "output 0").
std::string task_buffer_name(const std::string& task_id, bool input, std::size_t index);

/// After a call: throws OutOfBoundsWrite describing the first buffer whose redzone changed
/// ("out-of-bounds write: the kernel changed 4 bytes after the end of output 'y' (bytes +0 to +3
/// past its last byte)"). Inputs are named by `task_id`'s names when the task is registered.
void check_redzones(const std::string& task_id, const std::vector<at::Tensor>& inputs,
                    const std::vector<at::Tensor>& outputs);

}  // namespace rkt
