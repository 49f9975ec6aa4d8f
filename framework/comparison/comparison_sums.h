// What check_output needs from every element of an output and its float64 reference, as sums
// one pass can accumulate: the GPU's comparison kernel (comparison_kernel.cu) runs these
// functions per thread and combines its blocks' sums in a fixed order; tests run the same
// functions on the host against the tensor path (tests/unit/comparison_sums_test.cpp). Each
// float64 step is rounded on its own, as the tensor path rounds it (no fused multiply-add).
#pragma once

#include <cfloat>
#include <cmath>

#if defined(__CUDACC__)
#define RKT_HOST_DEVICE __host__ __device__
#else
#define RKT_HOST_DEVICE
#endif

namespace rkt {
namespace comparison_sums {

#if !defined(__CUDACC__)
using std::fabs;
using std::fmax;
using std::isfinite;
using std::isinf;
using std::isnan;
using std::sqrt;
#endif

/// Over a set of elements (a thread's, a block's, the whole output's).
struct Sums {
  double outside = 0;            ///< elements not within atol + rtol |ref| (a NaN error counts)
  double bad_values = 0;         ///< NaN or Inf outputs where the reference is finite
  double error_squares = 0;      ///< sum of (out - ref)^2
  double reference_squares = 0;  ///< sum of ref^2
  double largest_error = 0;      ///< max |out - ref|, NaN as 1e308 and Inf as DBL_MAX
};

RKT_HOST_DEVICE inline double multiply(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;  // the files that include this compile with -ffp-contract=off
#endif
}

RKT_HOST_DEVICE inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/// ref^2 added into `sums` (the first pass: the reference's rms sets the absolute tolerance).
RKT_HOST_DEVICE inline void add_reference(double reference, Sums& sums) {
  sums.reference_squares = add(sums.reference_squares, multiply(reference, reference));
}

/// One element against the bound `absolute + relative |ref|` (absolute: atol times the scale).
RKT_HOST_DEVICE inline void add_element(double output, double reference, double absolute,
                                        double relative, Sums& sums) {
  const double difference = output - reference;
  const double error = fabs(difference);
  if (!(error <= add(multiply(fabs(reference), relative), absolute))) sums.outside += 1;
  if (isfinite(reference) && !isfinite(output)) sums.bad_values += 1;
  sums.error_squares = add(sums.error_squares, multiply(difference, difference));
  const double counted = isnan(error) ? 1e308 : (isinf(error) ? DBL_MAX : error);
  sums.largest_error = fmax(sums.largest_error, counted);
}

/// `other` added into `sums`.
RKT_HOST_DEVICE inline void combine(const Sums& other, Sums& sums) {
  sums.outside += other.outside;
  sums.bad_values += other.bad_values;
  sums.error_squares = add(sums.error_squares, other.error_squares);
  sums.reference_squares = add(sums.reference_squares, other.reference_squares);
  sums.largest_error = fmax(sums.largest_error, other.largest_error);
}

/// reference_scale's rule from the first pass's sum: the rms, or 1 when it is zero or not
/// finite; `count` 0 gives 1.
RKT_HOST_DEVICE inline double own_scale(double reference_squares, double count) {
  if (count <= 0) return 1.0;
  const double rms = sqrt(reference_squares / count);
  return isfinite(rms) && rms > 0 ? rms : 1.0;
}

}  // namespace comparison_sums
}  // namespace rkt
