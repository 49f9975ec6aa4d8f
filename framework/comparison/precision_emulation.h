// What an honest kernel of each precision class computes: its inputs rounded as that precision
// rounds them, then float32 arithmetic. The judge runs this emulation (the task's reference in
// float32 on rounded inputs) to learn how far an honest kernel lands from the float64 reference on
// the very inputs of a case, and derives the class's bound from it (framework/comparison/derived_tolerance.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "rkt/precision.h"
#include "rkt/task.h"

namespace rkt {

/// Explicit mantissa bits of the inputs a class computes with: fp32 23, tf32 10, fp16 10, bf16 7.
int mantissa_bits(Precision precision);

/// Half the gap between 1 and the next representable value: 2^-(mantissa_bits + 1).
double unit_roundoff(Precision precision);

/// `x` (float32 values) rounded to `bits` explicit mantissa bits, to nearest with ties to even,
/// in float32's exponent range (tf32 with 10 bits, bf16's rounding with 7). Non-finite values stay.
at::Tensor round_mantissa(const at::Tensor& x, int bits);

/// `x` with its mantissa cut to `bits` explicit bits (towards zero): what tensor cores do when fed
/// float32 bits unconverted. An honest kernel may round this way; tests use it as one.
at::Tensor truncate_mantissa(const at::Tensor& x, int bits);

/// `x` rounded to `bits` mantissa bits stochastically (up with probability equal to the dropped
/// fraction), from `seed`: another honest rounding, whose spread the judge samples.
at::Tensor round_mantissa_stochastically(const at::Tensor& x, int bits, std::uint64_t seed);

/// `x` as a kernel of `precision` sees its inputs, as float32: unchanged for fp32, tf32 and bf16
/// by round_mantissa, fp16 through IEEE half (its range and subnormals included).
at::Tensor round_to_precision(const at::Tensor& x, Precision precision);

/// The outputs (float64, on `device`) of the task's reference computed in float32 on `inputs`
/// rounded to `precision` (index inputs unchanged): an honest kernel of that class.
std::vector<at::Tensor> honest_outputs(const TaskSpec& task, const std::vector<at::Tensor>& inputs,
                                       Precision precision, Device device);

/// Two honest kernels of the class: inputs rounded to nearest (honest_outputs) and rounded
/// stochastically (a fixed seed). Where a computation is ill-conditioned (softmax of inputs x1000:
/// the last input bits decide which element wins) one rounding can land close by luck; the bound
/// takes the worse of the two. Indexed [sample][output].
std::vector<std::vector<at::Tensor>> honest_output_samples(const TaskSpec& task,
                                                           const std::vector<at::Tensor>& inputs,
                                                           Precision precision, Device device);

/// The precision class of a storage dtype: bf16 for bfloat16, fp16 for float16, fp32 otherwise.
Precision storage_class(c10::ScalarType dtype);

/// True for bfloat16 and float16: formats whose storage alone costs more than fp32's bound.
bool is_low_precision(c10::ScalarType dtype);

/// The class of the 16-bit format (bf16, fp16) a task's inputs are stored in, from its declared
/// input dtypes (the first 16-bit one decides); fp32 for a task stored in float32.
Precision task_storage_class(const TaskSpec& task);

/// True when any floating input is stored in bfloat16 or float16: the case of a low-precision
/// task, whose honest kernels differ from the reference by their storage rounding at least.
bool has_low_precision_input(const std::vector<at::Tensor>& inputs);

/// Honest outputs (float64) stored in `dtype` as an honest kernel stores them: each sample rounded
/// to nearest, and the first also rounded stochastically (another honest conversion, whose spread
/// the bound samples). The float32 arithmetic before the store is the samples' own.
std::vector<at::Tensor> stored_as(const std::vector<at::Tensor>& honest, c10::ScalarType dtype);

/// `honest` (float64) stored in `dtype` by truncation (a conversion that drops the low bits, as
/// a kernel that takes a float's top 16 bits for bf16 does): the directed-rounding honest kernel.
at::Tensor stored_truncated(const at::Tensor& honest, c10::ScalarType dtype);

/// The outputs (float64, on `device`) of the task's reference in float32 on `inputs` truncated
/// to `precision` (rounded toward zero, as tensor cores convert float32 bits fed to a TF32 mma):
/// the directed-rounding honest kernel derived_tolerance admits within kDirectedRoundingFactor.
std::vector<at::Tensor> truncated_honest_outputs(const TaskSpec& task,
                                                 const std::vector<at::Tensor>& inputs,
                                                 Precision precision, Device device);

}  // namespace rkt
