// check_output on a GPU in two passes over memory instead of about sixteen ATen operations and
// their full-size temporaries (framework/comparison/comparison_sums.h has the arithmetic): the
// first pass sums the reference's squares (its rms sets the absolute tolerance), the second
// judges every element against the bound. Each pass's blocks write their sums, and one block
// combines them in a fixed order, so the results do not vary from call to call. Used by
// check_output on a CUDA output unless RKT_GPU_COMPARISON_KERNEL=0 (it agreed with the tensor
// path on the H200, run 39: 0.38 ms against 5.1 ms for 64 Mi elements) or when asked for
// (ComparisonPath::kernel). No CUDA headers here,
// so C++ files can call it.
#pragma once

#include <cstdint>

namespace rkt {

/// The storage formats the kernel reads an output in.
enum class ComparedFormat { float32, float64, float16, bfloat16 };

/// Queues on `cuda_stream` the comparison of `count` contiguous elements of `output` (in
/// `format`) with `reference` (float64, contiguous), both device memory. `scratch` is device
/// memory of comparison_scratch_doubles(count) doubles. When the queue has run, `results` (device
/// memory, 7 doubles) holds: outside, bad values, sum of squared errors, sum of the reference's
/// squares, largest error, the reference's own scale and the scale used (the larger of it and
/// `scale_floor`). Returns the launches' cudaError_t as an int (0: queued).
int enqueue_output_comparison(const void* output, ComparedFormat format, const double* reference,
                              std::int64_t count, double atol, double rtol, double scale_floor,
                              double* scratch, double* results, void* cuda_stream);

/// The scratch `enqueue_output_comparison` needs for `count` elements, in doubles.
std::int64_t comparison_scratch_doubles(std::int64_t count);

}  // namespace rkt
