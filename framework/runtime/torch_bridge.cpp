#include "framework/runtime/torch_bridge.h"

#include <ATen/ops/from_blob.h>

#include <stdexcept>
#include <string>

namespace rkt {

c10::ScalarType to_scalar_type(DType dtype) {
  switch (dtype) {
    case DType::float32: return c10::kFloat;
    case DType::float64: return c10::kDouble;
    case DType::float16: return c10::kHalf;
    case DType::bfloat16: return c10::kBFloat16;
    case DType::int64: return c10::kLong;
    case DType::int32: return c10::kInt;
  }
  throw std::invalid_argument("unknown dtype");
}

DType to_dtype(c10::ScalarType scalar_type) {
  switch (scalar_type) {
    case c10::kFloat: return DType::float32;
    case c10::kDouble: return DType::float64;
    case c10::kHalf: return DType::float16;
    case c10::kBFloat16: return DType::bfloat16;
    case c10::kLong: return DType::int64;
    case c10::kInt: return DType::int32;
    default:
      throw std::invalid_argument(std::string("dtype ") + c10::toString(scalar_type) +
                                  " has no rkt::DType");
  }
}

Device to_device(const c10::Device& device) {
  if (device.is_cpu()) return Device::cpu;
  if (device.is_cuda()) return Device::cuda;
  throw std::invalid_argument("device " + device.str() + " is neither cpu nor cuda");
}

c10::Device to_torch_device(Device device) {
  return device == Device::cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
}

TensorView to_view(const at::Tensor& tensor) {
  if (tensor.dim() > kMaxRank) {
    throw std::invalid_argument("tensor of rank " + std::to_string(tensor.dim()) +
                                " exceeds rkt::kMaxRank");
  }
  TensorView view;
  view.data = tensor.data_ptr();
  view.rank = static_cast<int>(tensor.dim());
  for (int d = 0; d < view.rank; ++d) {
    view.sizes[d] = tensor.size(d);
    view.strides[d] = tensor.stride(d);
  }
  view.dtype = to_dtype(tensor.scalar_type());
  view.device = to_device(tensor.device());
  return view;
}

at::Tensor tensor_over(const TensorView& view) {
  return at::from_blob(
      view.data, at::IntArrayRef(view.sizes, static_cast<std::size_t>(view.rank)),
      at::IntArrayRef(view.strides, static_cast<std::size_t>(view.rank)),
      at::TensorOptions().dtype(to_scalar_type(view.dtype)).device(to_torch_device(view.device)));
}

std::vector<HashedBuffer> hashed_buffers(const std::vector<at::Tensor>& tensors) {
  std::vector<HashedBuffer> buffers;
  for (const at::Tensor& tensor : tensors) {
    if (tensor.defined() && tensor.is_cuda() && tensor.is_contiguous()) {
      buffers.push_back({tensor.data_ptr(), tensor.nbytes(), true});
    } else {
      buffers.push_back({});
    }
  }
  return buffers;
}

}  // namespace rkt
