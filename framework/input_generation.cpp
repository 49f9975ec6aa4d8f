#include "framework/input_generation.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "framework/dim_resolution.h"
#include "framework/kernel_invocation.h"
#include "framework/torch_bridge.h"

namespace rkt {
namespace {

at::Tensor draw(const InputSpec& input, const Dims& dims, at::Generator& generator) {
  const std::vector<std::int64_t> sizes = resolve_dims(input.dims, dims);
  const ValueDistribution& values = input.values;
  const auto options = at::TensorOptions().dtype(at::kFloat);
  at::Tensor drawn;
  switch (values.kind) {
    case ValueDistribution::Kind::normal:
      drawn = at::empty(sizes, options).normal_(values.mean, values.stddev, generator);
      break;
    case ValueDistribution::Kind::uniform:
      drawn = at::empty(sizes, options).uniform_(values.low, values.high, generator);
      break;
    case ValueDistribution::Kind::kaiming_uniform: {
      const double bound = std::sqrt(6.0 / product_of_dims(values.fan_in_dims, dims));
      drawn = at::empty(sizes, options).uniform_(-bound, bound, generator);
      break;
    }
    case ValueDistribution::Kind::xavier_uniform: {
      const double fans = static_cast<double>(product_of_dims(values.fan_in_dims, dims) +
                                              product_of_dims(values.fan_out_dims, dims));
      const double bound = std::sqrt(6.0 / fans);
      drawn = at::empty(sizes, options).uniform_(-bound, bound, generator);
      break;
    }
    case ValueDistribution::Kind::constant:
      drawn = at::full(sizes, values.mean, options);
      break;
    case ValueDistribution::Kind::fan_in_uniform: {
      const double bound = 1.0 / std::sqrt(product_of_dims(values.fan_in_dims, dims));
      drawn = at::empty(sizes, options).uniform_(-bound, bound, generator);
      break;
    }
    case ValueDistribution::Kind::xavier_normal: {
      const double fans = static_cast<double>(product_of_dims(values.fan_in_dims, dims) +
                                              product_of_dims(values.fan_out_dims, dims));
      drawn = at::empty(sizes, options).normal_(0, std::sqrt(2.0 / fans), generator);
      break;
    }
    case ValueDistribution::Kind::bernoulli:
      return at::empty(sizes, options)
          .bernoulli_(values.mean, generator)
          .to(to_scalar_type(input.dtype))
          .contiguous();
    case ValueDistribution::Kind::integers: {
      const std::int64_t high = values.high_dim.empty() ? static_cast<std::int64_t>(values.high)
                                                        : dims.at(values.high_dim);
      return at::randint(static_cast<std::int64_t>(values.low), high, sizes, generator,
                         at::TensorOptions().dtype(to_scalar_type(input.dtype)));
    }
  }
  return drawn.to(to_scalar_type(input.dtype)).contiguous();
}

// The shapes of a backward task's forward outputs at the drawn forward inputs: from meta copies
// (no data touched), or, for operators without a meta kernel, from a run on the inputs themselves.
std::vector<std::vector<std::int64_t>> forward_output_shapes(
    const TaskSpec& task, const std::vector<at::Tensor>& forward_inputs) {
  std::vector<at::Tensor> outputs;
  try {
    outputs = task.forward_reference()(meta_copies(forward_inputs));
  } catch (const std::exception&) {
    outputs = task.forward_reference()(forward_inputs);
  }
  std::vector<std::vector<std::int64_t>> shapes;
  for (const at::Tensor& output : outputs) shapes.emplace_back(output.sizes().vec());
  return shapes;
}

}  // namespace

std::vector<at::Tensor> generate_inputs(const TaskSpec& task, const Dims& dims,
                                        std::uint64_t seed) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  std::vector<at::Tensor> inputs;
  std::vector<std::vector<std::int64_t>> output_shapes;
  for (const InputSpec& input : task.inputs()) {
    if (input.like_output < 0) {
      inputs.push_back(draw(input, dims, generator));
      continue;
    }
    if (output_shapes.empty()) output_shapes = forward_output_shapes(task, inputs);
    const auto& shape = output_shapes.at(static_cast<std::size_t>(input.like_output));
    inputs.push_back(at::empty(shape, at::TensorOptions().dtype(at::kFloat))
                         .normal_(input.values.mean, input.values.stddev, generator)
                         .to(to_scalar_type(input.dtype))
                         .contiguous());
  }
  return inputs;
}

std::vector<std::vector<std::int64_t>> input_shapes(const TaskSpec& task, const Dims& dims) {
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<at::Tensor> forward_meta;
  std::vector<std::vector<std::int64_t>> output_shapes;
  for (const InputSpec& input : task.inputs()) {
    if (input.like_output < 0) {
      shapes.push_back(resolve_dims(input.dims, dims));
      forward_meta.push_back(at::empty(
          shapes.back(),
          at::TensorOptions().dtype(to_scalar_type(input.dtype)).device(at::kMeta)));
      continue;
    }
    if (output_shapes.empty()) {
      try {
        for (const at::Tensor& output : task.forward_reference()(forward_meta)) {
          output_shapes.emplace_back(output.sizes().vec());
        }
      } catch (const std::exception&) {
        // An operator without a meta kernel (aten::relu): only drawn inputs can tell.
        shapes.clear();
        for (const at::Tensor& drawn : generate_inputs(task, dims, 0)) {
          shapes.emplace_back(drawn.sizes().vec());
        }
        return shapes;
      }
    }
    shapes.push_back(output_shapes.at(static_cast<std::size_t>(input.like_output)));
  }
  return shapes;
}

namespace {
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}
}  // namespace

std::string ValueDistribution::describe() const {
  switch (kind) {
    case Kind::normal: return "normal(" + short_number(mean) + ", " + short_number(stddev) + ")";
    case Kind::uniform: return "uniform[" + short_number(low) + ", " + short_number(high) + ")";
    case Kind::kaiming_uniform: return "kaiming_uniform(fan_in=" + fan_in_dims + ")";
    case Kind::xavier_uniform:
      return "xavier_uniform(fan_in=" + fan_in_dims + ", fan_out=" + fan_out_dims + ")";
    case Kind::constant: return "constant(" + short_number(mean) + ")";
    case Kind::fan_in_uniform: return "fan_in_uniform(fan_in=" + fan_in_dims + ")";
    case Kind::xavier_normal:
      return "xavier_normal(fan_in=" + fan_in_dims + ", fan_out=" + fan_out_dims + ")";
    case Kind::bernoulli: return "bernoulli(" + short_number(mean) + ")";
    case Kind::integers:
      return "integers[" + std::to_string(static_cast<long long>(low)) + ", " +
             (high_dim.empty() ? std::to_string(static_cast<long long>(high)) : high_dim) + ")";
  }
  return "?";
}

}  // namespace rkt
