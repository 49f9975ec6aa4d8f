// Precision bounds derived from the computation, not from one constant per class.
//
// Why: a fixed tf32 bound (1e-3) failed an honest CPU matmul that rounds its inputs to TF32 and
// accumulates in float32 (1 element of 1485 at M=33 K=70 N=45): the error of an honest kernel
// depends on the reduction length, the magnitudes involved and the number of elements whose tail
// the elementwise check must cover. Rather than model each task, the judge measures it: the
// task's reference in float32 on the case's inputs rounded to the claimed class, to nearest and
// stochastically (honest_output_samples), are honest kernels of that class, and the worse one's
// distance from the float64 reference sets the bound. A kernel one class lower (bf16 inputs claiming tf32: 8x the input
// rounding error) lands far outside it.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "rkt/precision.h"
#include "rkt/task.h"

namespace rkt {

/// How far above the emulated honest error an honest kernel may land: rounding by truncation
/// instead of to nearest (tensor cores fed float32 bits) gives about 2.6x the error norm of the
/// emulation (a bias of 2u per product plus the same noise); a kernel one class lower gives 8x.
inline constexpr double kHonestErrorNormFactor = 4;  // [x emulated error norm]
/// Elementwise: the largest of n honest errors is about sqrt(2 ln n) standard deviations; this
/// factor covers a different honest rounding on top (the noise part is the same as the emulation's).
inline constexpr double kHonestErrorTailFactor = 2;  // [x expected largest of n]
/// Elementwise, against heavy tails: where a few outputs carry all the weight (softmax of inputs
/// scaled x1000 is nearly one-hot; its top elements move by tens of percent with the last input
/// bits), the largest honest error says more than the RMS. A different honest rounding lands
/// within this multiple of the emulation's largest error (measured: an input-truncating tf32 or
/// fp16 softmax at x1000 reached 4.5x on one draw of tests/unit/precision_bounds_test.cpp); a
/// kernel one class lower, 8x further.
inline constexpr double kHonestMaxErrorFactor = 3;  // [x emulated largest error]
/// Elementwise relative part: a truncating kernel's bias is 2u per product; twice that.
inline constexpr double kHonestRelativeUnits = 4;  // [x unit roundoff]

/// The tolerance for one output of a kernel claiming `precision`, given the float64 reference and
/// the output of an honest kernel of that class (honest_outputs) on the same inputs. Never below
/// `floor` (the class's default, or the task's widened tolerance):
///   atol = max(floor.atol, kHonestErrorTailFactor * (sqrt(2 ln n) + 1) * rms(honest - ref) / scale,
///              kHonestMaxErrorFactor * max|honest - ref| / scale)
///   rtol = max(floor.rtol, kHonestRelativeUnits * unit_roundoff(precision))
///   norm = max(floor.norm, kHonestErrorNormFactor * ||honest - ref|| / ||ref||)
/// with n the output's elements and scale = max(rms(ref), scale_floor), the unit atol is in.
/// A non-finite honest output (the class cannot represent the case) leaves the floor.
Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const at::Tensor& honest,
                            double scale_floor);

/// The same over several honest kernels (honest_output_samples): each bound from the worst.
Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const std::vector<at::Tensor>& honest,
                            double scale_floor);

/// Where a computation is ill-conditioned (softmax or cross-entropy of inputs x1000: the top
/// logits' last bits decide the winner), an input-truncating kernel lands further from the
/// reference than kHonestMaxErrorFactor or kHonestErrorNormFactor times the randomly rounding
/// emulations allow (measured: up to 4.5x the largest error, 3.7x the error norm). Its own
/// emulation (truncated_honest_outputs) is therefore an honest kernel too, admitted within this
/// factor of its errors: no wider, because in long reductions truncation's bias adds up along the
/// sum, and the usual factors over it would admit a kernel one class lower.
inline constexpr double kDirectedRoundingFactor = 1.5;  // [x truncating emulation's errors]

/// derived_tolerance over the honest samples, widened to kDirectedRoundingFactor times the
/// errors (largest element and norm) of `truncated`, the truncating emulation.
Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const std::vector<at::Tensor>& honest,
                            const at::Tensor& truncated, double scale_floor);

/// A declared low-precision accumulator (KernelSpec::accumulates_in): a sum of L terms whose
/// partial sums are each rounded to the accumulator's format errs by about u * sqrt(L / 6) of the
/// output's RMS when the terms' signs are random (the partial sums grow as sqrt(k)), u * sqrt(L) / 3
/// when they share a sign; blocked and pairwise sums by less. The bound admits u * sqrt(L) times
/// this factor, 2.4x above the sequential random-sign sum. Undeclared, the accumulator is fp32's:
/// 2^-24 sqrt(L) matters only for very long sums (a float32 sum over a vocabulary of 116257 terms,
/// one by one, erred by 1.0e-5 of the loss, past fp32's 1e-5 norm), and a kernel that sums in bf16
/// lands 2^16 times beyond it and sqrt(L) times beyond the storage bound.
inline constexpr double kAccumulationErrorFactor = 1;  // [x unit_roundoff(accumulator) * sqrt(L)]

/// `base` widened for a kernel that declares it accumulates in `accumulation` over sums of
/// `reduction_length` terms, for an output of `elements` elements:
///   norm = max(base.norm, kAccumulationErrorFactor * u * sqrt(L))
///   atol = max(base.atol, (sqrt(2 ln n) + 1) * kAccumulationErrorFactor * u * sqrt(L))
/// (the elementwise bound covers the largest of n such errors). A task without reduction dims has
/// L = 1, where fp32's term (6e-8) is far below every floor: its bound is `base`.
Tolerance accumulation_tolerance(const Tolerance& base, Precision accumulation,
                                 double reduction_length, double elements);

/// The bound of one output, as the judge applies it: derived_tolerance over the honest samples and
/// the truncating one (raw: the float32 arithmetic's outputs), stored first in the output's format
/// when that is bf16 or fp16 (stored_as, stored_truncated; the elementwise relative part then the
/// coarser of the claim's and the format's), then widened for the declared accumulation over
/// `reduction_length` terms. Without honest samples (an fp32 claim on an fp32 task): the floor.
Tolerance output_tolerance(const Tolerance& floor, Precision precision, Precision accumulation,
                           c10::ScalarType stored_dtype, const at::Tensor& reference,
                           std::vector<at::Tensor> honest, at::Tensor truncated,
                           double reduction_length, double scale_floor);

/// The task's reduction length on these inputs: the product of its reduction dims
/// (TaskSpec::reduction), each read from the first input that the dim sizes; 1 without any.
double reduction_length(const TaskSpec& task, const std::vector<at::Tensor>& inputs);

}  // namespace rkt
