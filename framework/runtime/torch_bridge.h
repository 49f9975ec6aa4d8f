// Conversions between LibTorch tensors and the framework's light types.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

#include "framework/runtime/outputs_final_at_return.h"
#include "rkt/precision.h"
#include "rkt/tensor_view.h"

namespace rkt {

c10::ScalarType to_scalar_type(DType dtype);
/// Throws std::invalid_argument for dtypes a TensorView cannot describe.
DType to_dtype(c10::ScalarType scalar_type);
Device to_device(const c10::Device& device);
c10::Device to_torch_device(Device device);
/// A view of `tensor`'s memory; the tensor must outlive the view.
TensorView to_view(const at::Tensor& tensor);
/// A tensor over `view`'s memory (not owned: `view`'s memory must outlive it).
at::Tensor tensor_over(const TensorView& view);
/// What the outputs-final check hashes of each tensor (any dtype; an undefined, CPU or strided
/// tensor is not hashed).
std::vector<HashedBuffer> hashed_buffers(const std::vector<at::Tensor>& tensors);

}  // namespace rkt
