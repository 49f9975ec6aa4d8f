// One benchmark input set with the call that runs the kernel on it: what the timed loop rotates
// over, and what the spot checks judge afterwards (its outputs are those of its last call).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "framework/cases/correctness_case.h"
#include "rkt/registration.h"
#include "rkt/torch_kernel.h"

namespace rkt {

struct KernelCallSet {
  PreparedCase prepared;
  std::vector<at::Tensor> outputs;
  detail::TorchKernelIO io;
  std::unique_ptr<KernelCall> call;
};

/// Runs `kernel` on `set` in this process; a tensor-form kernel's returned outputs become the
/// set's outputs.
inline void call_kernel(const KernelSpec& kernel, KernelCallSet& set) {
  kernel.function()(*set.call);
  if (kernel.returns_tensors()) set.outputs = set.io.outputs;
}

}  // namespace rkt
