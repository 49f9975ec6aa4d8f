// The precision a kernel claims, and the tolerance each claim is judged by.
#pragma once

namespace rkt {

/// The arithmetic a kernel claims to perform. The claim picks the tolerance it is judged by.
enum class Precision {
  fp32,  ///< IEEE float32 throughout (strict).
  tf32,  ///< float32 storage, TF32 tensor-core products (10-bit mantissa).
  bf16,  ///< bfloat16 arithmetic.
  fp16,  ///< float16 arithmetic.
};

const char* to_string(Precision precision);

/// How close a kernel's output must be to the float64 reference.
///
/// An element passes when |out - ref| <= atol * rms(ref) + rtol * |ref|, and the whole output
/// passes when, in addition, ||out - ref|| / ||ref|| <= max_relative_error_norm (L2 norms).
///
/// Why atol is in units of the reference's RMS (torch.allclose takes it in output units): the
/// framework scales inputs by 0.01 to 1000, and an absolute atol means nothing across that range.
/// At x0.01 a fixed 1e-4 accepts almost any answer; at x3 an honest fp32 matmul with K=4096 misses
/// it (measured on the H200: 1913 of 16.8M elements near zero, where the error of a long fp32 sum
/// is about sqrt(K) * eps * rms). Measured against the output's own scale, the check means the same
/// at every scale. For outputs of unit RMS it is torch.allclose with the same numbers. An all-zero
/// reference counts as RMS 1.
struct Tolerance {
  double atol = 0;                     // [x rms(reference)]
  double rtol = 0;                     // [fraction of |ref|]
  double max_relative_error_norm = 0;  // [fraction of ||ref||]
};

/// An output whose RMS is below this fraction of the largest output RMS of the same case is zero as
/// far as float32 can tell (e.g. a LayerNorm weight gradient when each row has one element: the
/// float64 reference gives rounding noise such as 7e-16, an fp32 kernel 0). Such an output is judged
/// in units of that floor rather than of its own rounding noise. The fraction is float32's
/// resolution (2^-23): far above float64 rounding, even after cancellation (1e-13 seen), and
/// nothing an fp32 result could resolve lies below it.
inline constexpr double kNumericallyZeroFraction = 1.2e-7;  // [x largest output RMS]

/// The default tolerance of each precision class. These are the only place the defaults live.
/// fp32 follows KernelBench (1e-4) and is the whole bound: an honest fp32 kernel summing 16384
/// products one by one lands about 3x inside it. Below fp32 these are floors: the judge raises
/// each bound to what an honest kernel of the class gives on the case's own inputs
/// (framework/comparison/derived_tolerance.h), so the floors can sit below the next class down: tf32 and
/// fp16 (10 mantissa bits) at 1e-3, under the error of bf16 inputs (7 bits: about 2.3e-3 to
/// 3.2e-3 relative), which therefore fails them; bf16 at KernelBench's 1e-2.
constexpr Tolerance default_tolerance(Precision precision) {
  switch (precision) {
    case Precision::fp32: return {1e-4, 1e-4, 1e-5};
    case Precision::tf32: return {1e-3, 1e-3, 1e-3};
    case Precision::fp16: return {1e-3, 1e-3, 1e-3};
    case Precision::bf16: return {1e-2, 1e-2, 1e-2};
  }
  return {};
}

}  // namespace rkt
