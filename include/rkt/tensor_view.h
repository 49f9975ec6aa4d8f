// A light description of a tensor (pointer, sizes, strides, dtype, device) that kernel files use
// instead of LibTorch, so that `.cu` files compile in about a second.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rkt {

/// Element type of a tensor.
enum class DType { float32, float64, float16, bfloat16, int64, int32 };

/// Where a tensor's memory lives and where a kernel runs.
enum class Device { cpu, cuda };

/// The largest rank a TensorView can describe.
inline constexpr int kMaxRank = 8;

/// Bytes per element of `dtype`.
constexpr std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::float64:
    case DType::int64: return 8;
    case DType::float32:
    case DType::int32: return 4;
    case DType::float16:
    case DType::bfloat16: return 2;
  }
  return 0;
}

/// True for float64, float32, float16 and bfloat16.
constexpr bool is_floating(DType dtype) {
  return dtype == DType::float64 || dtype == DType::float32 || dtype == DType::float16 ||
         dtype == DType::bfloat16;
}

const char* to_string(DType dtype);
const char* to_string(Device device);

/// A non-owning view of a strided tensor. Strides are in elements, not bytes.
struct TensorView {
  void* data = nullptr;
  int rank = 0;
  std::int64_t sizes[kMaxRank] = {};
  std::int64_t strides[kMaxRank] = {};  // [elements]
  DType dtype = DType::float32;
  Device device = Device::cpu;

  /// Size of dimension `dim`; a negative `dim` counts from the end.
  std::int64_t size(int dim) const { return sizes[dim < 0 ? dim + rank : dim]; }
  std::int64_t stride(int dim) const { return strides[dim < 0 ? dim + rank : dim]; }

  std::int64_t numel() const {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= sizes[d];
    return n;
  }

  /// True when the elements are laid out densely in row-major order.
  bool is_contiguous() const {
    std::int64_t expected = 1;
    for (int d = rank - 1; d >= 0; --d) {
      if (sizes[d] != 1 && strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  }

  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }
};

}  // namespace rkt
