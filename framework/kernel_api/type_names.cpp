// Names of the light types (dtype, device, precision): part of the kernel API library, so that
// kernel libraries and the worker have them without LibTorch.
#include "rkt/precision.h"
#include "rkt/tensor_view.h"

namespace rkt {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::int64: return "int64";
    case DType::int32: return "int32";
  }
  return "?";
}

const char* to_string(Device device) { return device == Device::cuda ? "cuda" : "cpu"; }

const char* to_string(Precision precision) {
  switch (precision) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::bf16: return "bf16";
    case Precision::fp16: return "fp16";
  }
  return "?";
}

}  // namespace rkt
