// The two 16-bit storage formats the low-precision tasks come in: each such task is declared once
// per format, as `<task>_bf16` and `<task>_fp16`, from one function that takes the format.
#pragma once

#include <array>
#include <string>

#include "rkt/tensor_view.h"

namespace rkt::low_precision {

struct StorageFormat {
  const char* suffix;  ///< "bf16" or "fp16": the task id's suffix
  DType dtype;         ///< every floating input and output of the task (unless it says otherwise)
};

inline constexpr std::array<StorageFormat, 2> kStorageFormats = {
    StorageFormat{"bf16", DType::bfloat16}, StorageFormat{"fp16", DType::float16}};

inline constexpr double kStorageBytes = 2;  // [bytes per bf16 or fp16 element]

/// "<stem>_<suffix>", e.g. "softmax_bf16".
inline std::string task_id(const std::string& stem, const StorageFormat& format) {
  return stem + "_" + format.suffix;
}

}  // namespace rkt::low_precision
