// The sanitized worker's CUDA arguments in allocations of its own.
//
// A worker runs a kernel on the judge's buffers, mapped into it by CUDA IPC. Under
// compute-sanitizer's memcheck, a kernel that read one element past such a buffer never finished
// (runs 22-44: the worker spun in cuStreamSynchronize and the tool named nothing, whether the
// sandbox was on or off), while run 16 saw memcheck name a write past the end of rkt's own
// allocation. So the worker that memcheck watches can (`rkt-worker --own-device-copies`, started
// by the sanitizer cases under RKT_SANITIZER_OWN_COPIES=1: not the default until a GPU run has
// tried it) copy each CUDA argument into a cudaMalloc of exactly its bytes before the call, hand
// the kernel those, and copy the outputs back after it: memcheck then judges every access against
// an allocation of the worker's own, whose bounds it knows.
#pragma once

#include <vector>

#include "framework/worker/kernel_calls.h"

namespace rkt {

class OwnDeviceCopies {
 public:
  /// Replaces the data of every CUDA view in `arguments` by a copy in an allocation of its own
  /// (the inputs' values and the outputs' poison copied in). Throws std::runtime_error on a CUDA
  /// error; nothing is replaced in a build without CUDA.
  explicit OwnDeviceCopies(CallArguments& arguments);
  /// Frees the copies.
  ~OwnDeviceCopies();
  OwnDeviceCopies(const OwnDeviceCopies&) = delete;
  OwnDeviceCopies& operator=(const OwnDeviceCopies&) = delete;

  /// Copies the outputs back into the judge's buffers (after a call that succeeded).
  void copy_outputs_back() const;

 private:
  struct Copy {
    void* shared = nullptr;  ///< the judge's buffer, as mapped
    void* own = nullptr;     ///< the worker's allocation
    std::size_t bytes = 0;
  };
  void free_copies();
  std::vector<Copy> inputs_, outputs_;
};

}  // namespace rkt
