// storage_conversion.h: bf16 and fp16 elements read as float and written from float, rounded to
// nearest (ties to even) as the hardware converts them, with fp16's subnormals and overflow to
// Inf. For CPU loop kernels (and the CPU adversaries) over tensors stored in the 16-bit formats:
// kernel files see no LibTorch, so no at::BFloat16 or at::Half.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <rkt/tensor_view.h>

namespace rkt::cpu_loops {

inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

inline float float_from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline float bf16_to_float(std::uint16_t stored) { return float_from_bits(std::uint32_t{stored} << 16); }

inline std::uint16_t float_to_bf16(float value) {
  const std::uint32_t bits = float_bits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // NaN stays NaN
  const std::uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

inline float fp16_to_float(std::uint16_t stored) {
  const std::uint32_t sign = (std::uint32_t{stored} & 0x8000u) << 16;
  const std::uint32_t exponent = (stored >> 10) & 0x1fu;
  const std::uint32_t mantissa = stored & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | (mantissa << 13));
  return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline std::uint16_t float_to_fp16(float value) {
  const std::uint32_t bits = float_bits(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) {  // Inf, NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  }
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: Inf
  if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal, in units of 2^-24 (exact scaling)
    const float units = float_from_bits(magnitude) * 16777216.0f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(units)));
  }
  const std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded >> 13) - (112u << 10)));
}

/// Element `i` of a float32, bf16 or fp16 view, as float.
inline float load(const TensorView& view, std::int64_t i) {
  switch (view.dtype) {
    case DType::float32: return view.data_as<const float>()[i];
    case DType::bfloat16: return bf16_to_float(view.data_as<const std::uint16_t>()[i]);
    case DType::float16: return fp16_to_float(view.data_as<const std::uint16_t>()[i]);
    default: break;
  }
  throw std::invalid_argument(std::string("load: unsupported dtype ") + to_string(view.dtype));
}

/// Element `i` of a float32, bf16 or fp16 view set to `value`, rounded to nearest.
inline void store(const TensorView& view, std::int64_t i, float value) {
  switch (view.dtype) {
    case DType::float32: view.data_as<float>()[i] = value; return;
    case DType::bfloat16: view.data_as<std::uint16_t>()[i] = float_to_bf16(value); return;
    case DType::float16: view.data_as<std::uint16_t>()[i] = float_to_fp16(value); return;
    default: break;
  }
  throw std::invalid_argument(std::string("store: unsupported dtype ") + to_string(view.dtype));
}

/// `value` rounded to the storage format of `dtype` and back (what a kernel that keeps an
/// intermediate in that format sees).
inline float round_to(DType dtype, float value) {
  switch (dtype) {
    case DType::bfloat16: return bf16_to_float(float_to_bf16(value));
    case DType::float16: return fp16_to_float(float_to_fp16(value));
    default: return value;
  }
}

}  // namespace rkt::cpu_loops
