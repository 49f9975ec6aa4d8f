// The shapes and dtypes of a task's outputs for given inputs: what the judge allocates (and
// poisons) before a kernel call. Learned without computing any expected value: a backward task's
// gradients are shaped as its forward inputs; otherwise the reference runs on meta tensors, or,
// for operators without a meta kernel (aten::relu, scaled_dot_product_attention in LibTorch
// without Python's meta registrations, ...), on zeros on the kernel's device. Remembered per
// (task, config, input shapes and dtypes, device), so the cases and trials that share a shape pay
// for that run once (on the GPU it can cost 100 ms and more a shape: a fused attention backend
// planning for it).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// The shape and dtype of one output.
struct OutputSignature {
  std::vector<std::int64_t> sizes;
  c10::ScalarType dtype = c10::kFloat;
};

/// Tensors of the same shapes and dtypes on the meta device (no data).
std::vector<at::Tensor> meta_copies(const std::vector<at::Tensor>& tensors);

/// The signatures of `task`'s outputs on `inputs` (see above). Throws std::invalid_argument when
/// the reference returns another number of outputs than the task names.
std::vector<OutputSignature> infer_output_signatures(const TaskSpec& task,
                                                     const std::vector<at::Tensor>& inputs,
                                                     Device device);

/// How many times infer_output_signatures has run a reference (on meta tensors or zeros) in this
/// process: what the analytic path and the memory save, for tests.
std::uint64_t output_signature_reference_runs();

}  // namespace rkt
