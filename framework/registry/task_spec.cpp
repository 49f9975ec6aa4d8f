// TaskSpec's fluent setters and its validation.
#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "framework/dims/dim_resolution.h"
#include "rkt/task.h"

namespace rkt {

TaskSpec::TaskSpec(std::string id, std::string file, int line)
    : id_(std::move(id)), file_(std::move(file)), line_(line) {}

TaskSpec& TaskSpec::describe(std::string description) {
  description_ = std::move(description);
  return *this;
}

TaskSpec& TaskSpec::input(std::string name, std::vector<std::string> dims,
                          ValueDistribution values, DType dtype) {
  if (values.kind == ValueDistribution::Kind::integers && dtype == DType::float32) {
    dtype = DType::int64;
  }
  inputs_.push_back({std::move(name), std::move(dims), dtype, std::move(values)});
  return *this;
}

TaskSpec& TaskSpec::weight(std::string name, std::vector<std::string> dims,
                           ValueDistribution values, DType dtype) {
  input(std::move(name), std::move(dims), std::move(values), dtype);
  inputs_.back().is_weight = true;
  return *this;
}

TaskSpec& TaskSpec::buffer(std::string name, std::vector<std::string> dims,
                           ValueDistribution values) {
  weight(std::move(name), std::move(dims), std::move(values));
  inputs_.back().is_buffer = true;
  return *this;
}

TaskSpec& TaskSpec::reduction(std::vector<std::string> dims) {
  reduction_dims_ = std::move(dims);
  return *this;
}

TaskSpec& TaskSpec::outputs(std::vector<std::string> names) {
  output_names_ = std::move(names);
  return *this;
}

TaskSpec& TaskSpec::default_dims(Dims dims) {
  default_dims_ = std::move(dims);
  return *this;
}

TaskSpec& TaskSpec::small_dims(Dims dims) {
  small_dims_ = std::move(dims);
  return *this;
}

TaskSpec& TaskSpec::domain(const std::string& dim, std::int64_t min, std::int64_t max) {
  domains_[dim] = {min, max};
  return *this;
}

TaskSpec& TaskSpec::reference(ReferenceFunction function) {
  reference_ = std::move(function);
  return *this;
}

TaskSpec& TaskSpec::config_axis(std::string axis, std::vector<ConfigChoice> choices) {
  config_axes_.emplace_back(std::move(axis), std::move(choices));
  configured_.clear();
  return *this;
}

std::vector<TaskConfig> TaskSpec::configs() const {
  std::vector<TaskConfig> product = {TaskConfig{}};
  for (const auto& [axis, choices] : config_axes_) {
    std::vector<TaskConfig> extended;
    for (const TaskConfig& partial : product) {
      for (const ConfigChoice& choice : choices) {
        TaskConfig config = partial;
        config.name += (config.name.empty() ? "" : ",") + axis + "=" + choice.name;
        for (const auto& [dim, size] : choice.dims) config.dims[dim] = size;
        for (const auto& [input, values] : choice.values) config.values[input] = values;
        extended.push_back(std::move(config));
      }
    }
    product = std::move(extended);
  }
  if (config_axes_.empty()) product.front().name = "default";
  return product;
}

const TaskSpec& TaskSpec::configured(std::size_t index) const {
  if (config_axes_.empty() && index == 0) return *this;
  if (configured_.empty()) {
    for (const TaskConfig& config : configs()) {
      auto task = std::make_shared<TaskSpec>(*this);
      task->config_axes_.clear();
      task->configured_.clear();
      task->config_name_ = config.name;
      for (const auto& [dim, size] : config.dims) {
        task->default_dims_[dim] = size;
        // On the CPU a config keeps its own size where it is below the task's small size.
        const auto small = small_dims_.find(dim);
        task->small_dims_[dim] = small == small_dims_.end() ? size : std::min(size, small->second);
      }
      for (InputSpec& input : task->inputs_) {
        const auto law = config.values.find(input.name);
        if (law != config.values.end()) input.values = law->second;
      }
      configured_.push_back(std::move(task));
    }
  }
  if (index >= configured_.size()) {
    throw std::out_of_range("task '" + id_ + "' has " + std::to_string(configured_.size()) +
                            " configs; config " + std::to_string(index) + " does not exist");
  }
  return *configured_[index];
}

TaskSpec& TaskSpec::widen_tolerance(Precision precision, Tolerance tolerance, std::string reason) {
  tolerance_overrides_[precision] = {tolerance, std::move(reason)};
  return *this;
}

TaskSpec& TaskSpec::bytes(CostFunction minimal_bytes) {
  bytes_ = std::move(minimal_bytes);
  return *this;
}

TaskSpec& TaskSpec::flops(CostFunction flops) {
  flops_ = std::move(flops);
  return *this;
}

TaskSpec& TaskSpec::output_scale(CostFunction scale) {
  output_scale_ = std::move(scale);
  return *this;
}

Tolerance TaskSpec::tolerance(Precision precision) const {
  const auto found = tolerance_overrides_.find(precision);
  return found == tolerance_overrides_.end() ? default_tolerance(precision)
                                              : found->second.tolerance;
}

std::string TaskSpec::tolerance_reason(Precision precision) const {
  const auto found = tolerance_overrides_.find(precision);
  return found == tolerance_overrides_.end() ? "" : found->second.reason;
}

void TaskSpec::validate() const {
  if (!definition_error_.empty()) throw std::invalid_argument(definition_error_);
  if (!reference_) throw std::invalid_argument("it has no reference");
  if (inputs_.empty()) throw std::invalid_argument("it has no inputs");
  if (output_names_.empty()) throw std::invalid_argument("it names no outputs");
  std::set<std::string> names;
  for (const InputSpec& input : inputs_) {
    if (!names.insert(input.name).second) {
      throw std::invalid_argument("input '" + input.name + "' is declared twice");
    }
  }
  for (const Dims* dims : {&default_dims_, &small_dims_}) {
    const char* which = dims == &default_dims_ ? "default_dims" : "small_dims";
    for (const InputSpec& input : inputs_) {
      for (const std::string& dim : input.dims) {
        if (!is_literal_dim(dim) && dims->count(dim) == 0) {
          throw std::invalid_argument("input '" + input.name + "' uses dim '" + dim +
                                      "' that " + which + " does not define");
        }
      }
      if (!input.values.high_dim.empty() && dims->count(input.values.high_dim) == 0) {
        throw std::invalid_argument("input '" + input.name + "' draws indices below dim '" +
                                    input.values.high_dim + "' that " + which +
                                    " does not define");
      }
    }
    for (const auto& [dim, size] : *dims) {
      if (size < 1) {
        throw std::invalid_argument(std::string(which) + " sets dim '" + dim + "' to " +
                                    std::to_string(size) + "; dims must be at least 1");
      }
    }
  }
  for (const auto& [dim, range] : domains_) {
    if (default_dims_.count(dim) == 0) {
      throw std::invalid_argument("domain given for unknown dim '" + dim + "'");
    }
    if (range.min < 1 || range.max < range.min) {
      throw std::invalid_argument("domain of dim '" + dim + "' is [" + std::to_string(range.min) +
                                  ", " + std::to_string(range.max) + "]; need 1 <= min <= max");
    }
  }
  std::set<std::string> axes;
  for (const auto& [axis, choices] : config_axes_) {
    if (!axes.insert(axis).second) {
      throw std::invalid_argument("config axis '" + axis + "' is declared twice");
    }
    if (choices.empty()) throw std::invalid_argument("config axis '" + axis + "' has no choices");
    for (const ConfigChoice& choice : choices) {
      for (const auto& [dim, size] : choice.dims) {
        if (default_dims_.count(dim) == 0 || size < 1) {
          throw std::invalid_argument("config '" + axis + "=" + choice.name + "' sets dim '" +
                                      dim + "' to " + std::to_string(size) +
                                      ", but the task has no such dim or the size is below 1");
        }
      }
      for (const auto& [input, values] : choice.values) {
        if (names.count(input) == 0) {
          throw std::invalid_argument("config '" + axis + "=" + choice.name +
                                      "' draws unknown input '" + input + "'");
        }
      }
    }
  }
  // The reduction length is read from the drawn inputs' shapes, so each dim must size an input.
  for (const std::string& dim : reduction_dims_) {
    const bool sizes_an_input = std::any_of(inputs_.begin(), inputs_.end(), [&](const InputSpec& input) {
      return std::find(input.dims.begin(), input.dims.end(), dim) != input.dims.end();
    });
    if (!sizes_an_input) {
      throw std::invalid_argument("reduction dim '" + dim + "' sizes none of the task's inputs");
    }
  }
  for (const auto& [precision, override_] : tolerance_overrides_) {
    if (override_.reason.empty()) {
      throw std::invalid_argument(std::string("tolerance for ") + to_string(precision) +
                                  " is widened without a reason");
    }
  }
}

}  // namespace rkt
