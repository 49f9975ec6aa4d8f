#include "framework/inputs/input_generation.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "framework/dims/dim_resolution.h"
#include "framework/inputs/counter_random.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// Input `ordinal` of a case draws from its own stream of the case's seed, so inputs never
// depend on each other's sizes and any device can draw any of them (counter_random.h).
at::Tensor draw(const InputSpec& input, const Dims& dims, std::uint64_t seed,
                std::uint64_t ordinal, c10::Device device) {
  const std::vector<std::int64_t> sizes = resolve_dims(input.dims, dims);
  const ValueDistribution& values = input.values;
  const std::uint64_t key = counter_key(seed, ordinal);
  const auto uniform = [&](double low, double high) {
    return counter_uniform(sizes, key, low, high, device);
  };
  at::Tensor drawn;
  switch (values.kind) {
    case ValueDistribution::Kind::normal:
      drawn = counter_normal(sizes, key, values.mean, values.stddev, device);
      break;
    case ValueDistribution::Kind::uniform:
      drawn = uniform(values.low, values.high);
      break;
    case ValueDistribution::Kind::kaiming_uniform: {
      const double bound = std::sqrt(6.0 / product_of_dims(values.fan_in_dims, dims));
      drawn = uniform(-bound, bound);
      break;
    }
    case ValueDistribution::Kind::xavier_uniform: {
      const double fans = static_cast<double>(product_of_dims(values.fan_in_dims, dims) +
                                              product_of_dims(values.fan_out_dims, dims));
      const double bound = std::sqrt(6.0 / fans);
      drawn = uniform(-bound, bound);
      break;
    }
    case ValueDistribution::Kind::constant:
      drawn = at::full(sizes, values.mean, at::TensorOptions().dtype(at::kFloat).device(device));
      break;
    case ValueDistribution::Kind::fan_in_uniform: {
      const double bound = 1.0 / std::sqrt(product_of_dims(values.fan_in_dims, dims));
      drawn = uniform(-bound, bound);
      break;
    }
    case ValueDistribution::Kind::xavier_normal: {
      const double fans = static_cast<double>(product_of_dims(values.fan_in_dims, dims) +
                                              product_of_dims(values.fan_out_dims, dims));
      drawn = counter_normal(sizes, key, 0, std::sqrt(2.0 / fans), device);
      break;
    }
    case ValueDistribution::Kind::bernoulli:
      return counter_bernoulli(sizes, key, values.mean, device)
          .to(to_scalar_type(input.dtype))
          .contiguous();
    case ValueDistribution::Kind::integers: {
      const std::int64_t high = values.high_dim.empty() ? static_cast<std::int64_t>(values.high)
                                                        : dims.at(values.high_dim);
      return counter_integers(sizes, key, static_cast<std::int64_t>(values.low), high,
                              to_scalar_type(input.dtype), device);
    }
  }
  impose_structure(values, drawn);
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
                                        std::uint64_t seed, c10::Device device) {
  std::vector<at::Tensor> inputs;
  std::vector<std::vector<std::int64_t>> output_shapes;
  for (std::size_t ordinal = 0; ordinal < task.inputs().size(); ++ordinal) {
    const InputSpec& input = task.inputs()[ordinal];
    if (input.like_output < 0) {
      inputs.push_back(draw(input, dims, seed, ordinal, device));
      continue;
    }
    if (output_shapes.empty()) output_shapes = forward_output_shapes(task, inputs);
    const auto& shape = output_shapes.at(static_cast<std::size_t>(input.like_output));
    inputs.push_back(counter_normal(shape, counter_key(seed, ordinal), input.values.mean,
                                    input.values.stddev, device)
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

void impose_structure(const ValueDistribution& law, at::Tensor& tensor) {
  using Structure = ValueDistribution::Structure;
  if (law.structure == Structure::dense) return;
  if (tensor.dim() < 2) throw std::invalid_argument("a matrix structure needs at least two dims");
  at::Tensor structured;
  switch (law.structure) {
    case Structure::symmetric: structured = (tensor + tensor.transpose(-2, -1)) / 2; break;
    case Structure::upper_triangular: structured = at::triu(tensor); break;
    case Structure::lower_triangular: structured = at::tril(tensor); break;
    case Structure::dense: return;
  }
  tensor.copy_(structured);
}

std::string ValueDistribution::describe() const {
  const std::string law = describe_law();
  switch (structure) {
    case Structure::dense: return law;
    case Structure::symmetric: return "symmetric(" + law + ")";
    case Structure::upper_triangular: return "upper_triangular(" + law + ")";
    case Structure::lower_triangular: return "lower_triangular(" + law + ")";
  }
  return law;
}

std::string ValueDistribution::describe_law() const {
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
