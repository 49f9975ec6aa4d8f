// Conversions between LibTorch tensors and the framework's light types.
#pragma once

#include <ATen/core/Tensor.h>

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

}  // namespace rkt
