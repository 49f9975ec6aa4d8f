// Which files `rkt eval` and `rkt serve` take as kernel sources, by their file name's ending.
#pragma once

#include <string>

namespace rkt {

/// The endings of the kernel sources `rkt eval` compiles, as messages name them.
inline constexpr const char* kKernelSourceEndings = ".cpp, .cc, .cxx or .cu";

/// Whether `path` names a CUDA source (.cu), compiled by nvcc and judged on a GPU.
bool is_cuda_source(const std::string& path);

/// Whether `path` names a kernel source: one of kKernelSourceEndings.
bool is_kernel_source(const std::string& path);

}  // namespace rkt
