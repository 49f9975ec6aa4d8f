#include "framework/comparison/precision_emulation.h"

#include <ATen/ATen.h>

#include <cmath>

#include "framework/inputs/counter_random.h"
#include "framework/runtime/torch_bridge.h"

namespace rkt {
namespace {

constexpr int kFloat32MantissaBits = 23;

// The float32 bit pattern of `x` (as int32): rounding works on the bits.
at::Tensor float_bits(const at::Tensor& x) { return x.to(at::kFloat).contiguous().view(at::kInt); }

}  // namespace

int mantissa_bits(Precision precision) {
  switch (precision) {
    case Precision::fp32: return 23;
    case Precision::tf32: return 10;
    case Precision::fp16: return 10;
    case Precision::bf16: return 7;
  }
  return 23;
}

double unit_roundoff(Precision precision) { return std::ldexp(1.0, -(mantissa_bits(precision) + 1)); }

at::Tensor round_mantissa(const at::Tensor& x, int bits) {
  const at::Tensor values = x.to(at::kFloat).contiguous();
  if (bits >= kFloat32MantissaBits) return values;
  const int dropped = kFloat32MantissaBits - bits;
  const at::Tensor pattern = float_bits(values);
  // Round half to even: add just under half an ulp of the kept mantissa, plus its lowest bit.
  // A carry into the exponent is the rounding up to the next binade; Inf/NaN are kept below.
  const at::Tensor lowest_kept = at::bitwise_and(at::bitwise_right_shift(pattern, dropped), 1);
  const at::Tensor rounded =
      at::bitwise_and(pattern + ((1 << (dropped - 1)) - 1) + lowest_kept, ~((1 << dropped) - 1));
  return at::where(at::isfinite(values), rounded.view(at::kFloat), values);
}

at::Tensor truncate_mantissa(const at::Tensor& x, int bits) {
  const at::Tensor values = x.to(at::kFloat).contiguous();
  if (bits >= kFloat32MantissaBits) return values;
  const int dropped = kFloat32MantissaBits - bits;
  const at::Tensor cut = at::bitwise_and(float_bits(values), ~((1 << dropped) - 1));
  return at::where(at::isfinite(values), cut.view(at::kFloat), values);
}

at::Tensor round_mantissa_stochastically(const at::Tensor& x, int bits, std::uint64_t seed) {
  const at::Tensor values = x.to(at::kFloat).contiguous();
  if (bits >= kFloat32MantissaBits) return values;
  const int dropped = kFloat32MantissaBits - bits;
  // Drawn where the values are (counter_random.h): no host draw and copy for a GPU's tensors.
  const at::Tensor noise = counter_integers(values.sizes(), counter_key(seed, 0), 0, 1 << dropped,
                                            at::kInt, values.device());
  const at::Tensor rounded = at::bitwise_and(float_bits(values) + noise, ~((1 << dropped) - 1));
  return at::where(at::isfinite(values), rounded.view(at::kFloat), values);
}

at::Tensor round_to_precision(const at::Tensor& x, Precision precision) {
  switch (precision) {
    case Precision::fp32: return x.to(at::kFloat);
    case Precision::fp16: return x.to(at::kHalf).to(at::kFloat);
    case Precision::tf32:
    case Precision::bf16: return round_mantissa(x, mantissa_bits(precision));
  }
  return x.to(at::kFloat);
}

std::vector<at::Tensor> honest_outputs(const TaskSpec& task, const std::vector<at::Tensor>& inputs,
                                       Precision precision, Device device) {
  std::vector<at::Tensor> rounded;
  for (const at::Tensor& input : inputs) {
    at::Tensor copy = input.to(to_torch_device(device), /*non_blocking=*/false, /*copy=*/true);
    rounded.push_back(copy.is_floating_point() ? round_to_precision(copy, precision) : copy);
  }
  std::vector<at::Tensor> outputs;
  for (const at::Tensor& output : task.reference()(rounded)) outputs.push_back(output.to(at::kDouble));
  return outputs;
}

std::vector<std::vector<at::Tensor>> honest_output_samples(const TaskSpec& task,
                                                           const std::vector<at::Tensor>& inputs,
                                                           Precision precision, Device device) {
  std::vector<std::vector<at::Tensor>> samples = {honest_outputs(task, inputs, precision, device)};
  if (precision == Precision::fp32) return samples;
  std::vector<at::Tensor> rounded;
  std::uint64_t seed = 0x5eed;
  for (const at::Tensor& input : inputs) {
    at::Tensor copy = input.to(to_torch_device(device), /*non_blocking=*/false, /*copy=*/true);
    if (copy.is_floating_point()) {
      copy = precision == Precision::fp16
                 ? round_mantissa_stochastically(copy, mantissa_bits(precision), ++seed).to(at::kHalf).to(at::kFloat)
                 : round_mantissa_stochastically(copy, mantissa_bits(precision), ++seed);
    }
    rounded.push_back(copy);
  }
  std::vector<at::Tensor> outputs;
  for (const at::Tensor& output : task.reference()(rounded)) outputs.push_back(output.to(at::kDouble));
  samples.push_back(outputs);
  return samples;
}

Precision storage_class(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kBFloat16: return Precision::bf16;
    case at::kHalf: return Precision::fp16;
    default: return Precision::fp32;
  }
}

bool is_low_precision(c10::ScalarType dtype) { return storage_class(dtype) != Precision::fp32; }

Precision task_storage_class(const TaskSpec& task) {
  for (const InputSpec& input : task.inputs()) {
    const Precision stored = storage_class(to_scalar_type(input.dtype));
    if (stored != Precision::fp32) return stored;
  }
  return Precision::fp32;
}

bool has_low_precision_input(const std::vector<at::Tensor>& inputs) {
  for (const at::Tensor& input : inputs) {
    if (input.defined() && is_low_precision(input.scalar_type())) return true;
  }
  return false;
}

std::vector<at::Tensor> stored_as(const std::vector<at::Tensor>& honest, c10::ScalarType dtype) {
  std::vector<at::Tensor> stored;
  for (const at::Tensor& sample : honest) {
    if (sample.defined()) stored.push_back(sample.to(dtype).to(at::kDouble));
  }
  if (!honest.empty() && honest.front().defined()) {
    // Stochastically to the format's mantissa; float16's range and subnormals by its own cast.
    const at::Tensor randomly = round_mantissa_stochastically(
        honest.front(), mantissa_bits(storage_class(dtype)), /*seed=*/0x5707e);
    stored.push_back(randomly.to(dtype).to(at::kDouble));
  }
  return stored;
}

at::Tensor stored_truncated(const at::Tensor& honest, c10::ScalarType dtype) {
  if (!honest.defined()) return honest;
  return truncate_mantissa(honest, mantissa_bits(storage_class(dtype))).to(dtype).to(at::kDouble);
}

std::vector<at::Tensor> truncated_honest_outputs(const TaskSpec& task,
                                                 const std::vector<at::Tensor>& inputs,
                                                 Precision precision, Device device) {
  std::vector<at::Tensor> truncated;
  for (const at::Tensor& input : inputs) {
    at::Tensor copy = input.to(to_torch_device(device), /*non_blocking=*/false, /*copy=*/true);
    if (copy.is_floating_point()) {
      copy = truncate_mantissa(copy, mantissa_bits(precision));
      if (precision == Precision::fp16) copy = copy.to(at::kHalf).to(at::kFloat);
    }
    truncated.push_back(copy);
  }
  std::vector<at::Tensor> outputs;
  for (const at::Tensor& output : task.reference()(truncated)) outputs.push_back(output.to(at::kDouble));
  return outputs;
}

}  // namespace rkt
