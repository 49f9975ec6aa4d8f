// Judging one kernel output against the float64 reference.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "rkt/precision.h"

namespace rkt {

/// ||output - reference|| / ||reference|| in float64 (L2 norms). When the reference is all zeros
/// the absolute norm ||output - reference|| is returned instead.
double relative_error_norm(const at::Tensor& output, const at::Tensor& reference);

/// The RMS of `reference`, or 1 when it is zero or not finite: the unit of Tolerance::atol.
double reference_scale(const at::Tensor& reference);

/// Number of elements with |output - reference| > atol * reference_scale + rtol * |reference|
/// (NaN counts).
std::int64_t count_outside_tolerance(const at::Tensor& output, const at::Tensor& reference,
                                     const Tolerance& tolerance);

struct OutputCheck {
  bool passed = false;
  std::string message;  ///< Why it failed, with the worst element; empty when it passed.
  double max_abs_error = 0;
  double relative_error_norm = 0;
};

/// How check_output computes its sums on a GPU: `automatic` with the comparison kernel
/// (comparison_kernel.h; checked against the ATen path on the H200, docs/gpu_runs.md run 39),
/// or through ATen operations when RKT_GPU_COMPARISON_KERNEL=0 or the output's format has no
/// kernel; `tensor_ops` and `kernel` force either, for tests. The CPU always takes the ATen
/// operations.
enum class ComparisonPath { automatic, tensor_ops, kernel };

/// RKT_GPU_COMPARISON_KERNEL=0: `automatic` compares on a GPU through ATen operations instead.
inline constexpr const char* kGpuComparisonKernelVariable = "RKT_GPU_COMPARISON_KERNEL";

/// Checks `output` (any device, the kernel's dtype) against `reference` (float64): shape, dtype,
/// device, no NaN/Inf where the reference is finite, allclose, and the relative error norm.
/// `expected_dtype` is the dtype the task's reference produces in float32. `scale_floor` is the
/// least scale atol and the error norm are measured in (see numerically_zero_floor).
OutputCheck check_output(const at::Tensor& output, const at::Tensor& reference,
                         c10::ScalarType expected_dtype, const c10::Device& expected_device,
                         const Tolerance& tolerance, double scale_floor = 0,
                         ComparisonPath path = ComparisonPath::automatic);

/// The scale floor for the outputs of one case: kNumericallyZeroFraction of the largest output
/// RMS. An output below it (e.g. a LayerNorm weight gradient over one element, zero up to float64
/// rounding) is judged on the scale of the case's largest output instead of its own rounding noise.
double numerically_zero_floor(const std::vector<at::Tensor>& references);

/// True when every element of `tensor` is finite (integer tensors always are).
bool all_finite(const at::Tensor& tensor);

}  // namespace rkt
