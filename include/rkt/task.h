// A task: what a kernel must compute. Tasks are declared in tasks/ with RKT_TASK(id).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rkt/precision.h"
#include "rkt/tensor_view.h"
#include "rkt/value_distribution.h"

namespace rkt {

/// Concrete sizes for a task's symbolic dims, e.g. {{"B", 64}, {"N", 300}}.
using Dims = std::map<std::string, std::int64_t>;

/// One named input of a task.
struct InputSpec {
  std::string name;
  /// Symbolic dims (names from the task's dims) or integer literals such as "3".
  std::vector<std::string> dims;
  DType dtype = DType::float32;
  ValueDistribution values;
  /// A learned parameter (weight, bias) rather than data: the task filter varies the two apart.
  bool is_weight = false;
  /// A model buffer (BatchNorm's running statistics): a weight that distributions never scale
  /// or negate, since a negative running variance is not a valid input.
  bool is_buffer = false;
  /// Backward tasks: this input is the gradient of forward output `like_output` and takes its
  /// shape (-1: an ordinary input with symbolic dims).
  int like_output = -1;
  /// Index or mask data (class labels, keep masks): never scaled or negated by a distribution.
  bool is_index() const {
    return values.kind == ValueDistribution::Kind::integers ||
           values.kind == ValueDistribution::Kind::bernoulli;
  }
  /// Whether the test distributions (x3, x0.01, negated, ...) scale this input.
  bool is_scaled() const { return !is_index() && !is_buffer; }
};

/// One value of a config axis: a name, the dims it sets and the inputs it draws differently.
/// E.g. {"xavier", {}, {{"w", values::xavier_normal("K", "N")}}} or {"4096", {{"N", 4096}}, {}}.
struct ConfigChoice {
  std::string name;
  Dims dims;
  std::map<std::string, ValueDistribution> values;
};

/// A setting a task is run under: one choice from each of its config axes.
struct TaskConfig {
  std::string name;  ///< "batch=64,init=kaiming"; "default" when the task has no axes.
  Dims dims;         ///< Dims set by the choices (on top of the task's default dims).
  std::map<std::string, ValueDistribution> values;
};

/// The range a property test may draw a dim from.
struct DimDomain {
  std::int64_t min = 1;
  std::int64_t max = 1;
};

/// A widened tolerance and why it is needed. Reports show both.
struct ToleranceOverride {
  Tolerance tolerance;
  std::string reason;
};

/// The reference: LibTorch operations on the task's inputs, in order. It is run in float64 to
/// judge kernels and on meta tensors to learn output shapes and dtypes.
using ReferenceFunction = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;
/// Minimal bytes moved or flops performed at the given dims (for roofline numbers).
using CostFunction = std::function<double(const Dims&)>;

class TaskSpec {
 public:
  TaskSpec(std::string id, std::string file, int line);

  TaskSpec& describe(std::string description);
  /// Adds an input. Inputs are passed to kernels and the reference in the order they are added.
  TaskSpec& input(std::string name, std::vector<std::string> dims, ValueDistribution values,
                  DType dtype = DType::float32);
  /// Adds a learned parameter (weight, bias): an input like the others, passed in the same order,
  /// that the task filter varies separately from the data.
  TaskSpec& weight(std::string name, std::vector<std::string> dims, ValueDistribution values,
                   DType dtype = DType::float32);
  /// Adds a model buffer (running statistics): a weight that distributions do not scale.
  TaskSpec& buffer(std::string name, std::vector<std::string> dims, ValueDistribution values);
  /// Names the outputs, in order. Their shapes and dtypes come from the reference.
  TaskSpec& outputs(std::vector<std::string> names);
  /// The benchmark size (also the size CUDA kernels are tested at).
  TaskSpec& default_dims(Dims dims);
  /// The size CPU kernels are tested at: small enough for CI.
  TaskSpec& small_dims(Dims dims);
  /// The range property tests draw `dim` from. Dims without a domain stay at the test size.
  TaskSpec& domain(const std::string& dim, std::int64_t min, std::int64_t max);
  TaskSpec& reference(ReferenceFunction function);
  /// Adds a config axis. A task's configs are the cartesian product of its axes, in declaration
  /// order (robust-kbench's init x input x shared settings); a kernel must pass every config.
  /// The first config (the first choice of each axis) is the primary one: integrity gates and
  /// benchmarks run on it. On the CPU each config's dims are capped by small_dims.
  TaskSpec& config_axis(std::string axis, std::vector<ConfigChoice> choices);
  /// Names the dims a kernel's longest sum runs over (GEMM: {"K"}; attention: {"S"}; a row
  /// reduction: {"N"}); their product is the reduction length. A kernel that declares a
  /// low-precision accumulator (KernelSpec::accumulates_in) is judged by a bound that grows with
  /// it (framework/comparison/derived_tolerance.h). Default: no reduction (length 1).
  TaskSpec& reduction(std::vector<std::string> dims);
  /// Widens the tolerance of `precision` for this task; `reason` is mandatory and reported.
  TaskSpec& widen_tolerance(Precision precision, Tolerance tolerance, std::string reason);
  TaskSpec& bytes(CostFunction minimal_bytes);  // [bytes]
  TaskSpec& flops(CostFunction flops);          // [floating-point operations]
  /// The typical magnitude of the outputs (e.g. 1/N for a softmax over N), which the task
  /// filter's thresholds are relative to. Default: 1.
  TaskSpec& output_scale(CostFunction scale);

  const std::string& id() const { return id_; }
  const std::string& description() const { return description_; }
  const std::vector<InputSpec>& inputs() const { return inputs_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  const Dims& default_dims() const { return default_dims_; }
  const Dims& small_dims() const { return small_dims_; }
  const std::map<std::string, DimDomain>& domains() const { return domains_; }
  const ReferenceFunction& reference() const { return reference_; }
  /// The dims of the task's longest reduction (empty: none).
  const std::vector<std::string>& reduction_dims() const { return reduction_dims_; }
  /// The tolerance a kernel claiming `precision` is judged by on this task.
  Tolerance tolerance(Precision precision) const;
  /// The reason the task widened `precision`'s tolerance, or "" when it did not.
  std::string tolerance_reason(Precision precision) const;
  double minimal_bytes(const Dims& dims) const { return bytes_ ? bytes_(dims) : 0; }
  double flop_count(const Dims& dims) const { return flops_ ? flops_(dims) : 0; }
  double output_scale(const Dims& dims) const { return output_scale_ ? output_scale_(dims) : 1.0; }
  /// The dims kernels on `device` are tested at: default on CUDA, small on the CPU.
  const Dims& test_dims(Device device) const {
    return device == Device::cuda ? default_dims_ : small_dims_;
  }
  /// Every config, the primary one first; one config named "default" when there are no axes.
  std::vector<TaskConfig> configs() const;
  /// This task under config `index` of configs(): its dims and input laws set by the config,
  /// with no axes of its own. Config 0 of a task without axes is the task itself.
  const TaskSpec& configured(std::size_t index) const;
  /// The config this task was made for by configured(), or "default".
  const std::string& config_name() const { return config_name_; }
  const std::vector<std::pair<std::string, std::vector<ConfigChoice>>>& config_axes() const {
    return config_axes_;
  }

  /// For backward tasks: the id of the forward task and its reference; empty otherwise.
  const std::string& forward_task_id() const { return forward_task_id_; }
  const ReferenceFunction& forward_reference() const { return forward_reference_; }
  std::size_t num_forward_inputs() const { return num_forward_inputs_; }

  const std::string& file() const { return file_; }
  int line() const { return line_; }

  /// Throws std::invalid_argument naming what is wrong (missing reference, unknown dim, ...).
  void validate() const;

 private:
  std::string id_;
  std::string description_;
  std::vector<InputSpec> inputs_;
  std::vector<std::string> output_names_;
  Dims default_dims_;
  Dims small_dims_;
  std::map<std::string, DimDomain> domains_;
  ReferenceFunction reference_;
  std::vector<std::string> reduction_dims_;
  std::map<Precision, ToleranceOverride> tolerance_overrides_;
  CostFunction bytes_;
  CostFunction flops_;
  CostFunction output_scale_;
  std::vector<std::pair<std::string, std::vector<ConfigChoice>>> config_axes_;
  std::string config_name_ = "default";
  mutable std::vector<std::shared_ptr<const TaskSpec>> configured_;  // built on first use
  std::string forward_task_id_;
  ReferenceFunction forward_reference_;
  std::size_t num_forward_inputs_ = 0;
  std::string definition_error_;  ///< Reported by validate(), e.g. an unknown forward task.
  std::string file_;
  int line_ = 0;

  friend TaskSpec& register_backward_task(const std::string&, const std::string&, const char*,
                                          int);
  friend TaskSpec backward_task_of(const TaskSpec&, const std::string&, const std::string&, int);
};

/// Adds a task to the global registry.
TaskSpec& register_task(const std::string& id, const char* file, int line);

/// Adds the backward task of the registered task `forward_id` (declared earlier in the same
/// file): its inputs are the forward inputs followed by one gradient per forward output
/// ("grad_<output>", drawn N(0, 1) in the output's shape); its outputs are the gradients of every
/// floating input ("grad_<input>"); its reference is LibTorch autograd through the forward
/// reference. Dims, domains, configs and widened tolerances are the forward task's; the setters
/// may change them afterwards.
TaskSpec& register_backward_task(const std::string& id, const std::string& forward_id,
                                 const char* file, int line);

/// The backward task of `forward` (what register_backward_task registers), unregistered.
TaskSpec backward_task_of(const TaskSpec& forward, const std::string& id, const std::string& file,
                          int line);

/// The task with `id`, or nullptr.
const TaskSpec* find_task(const std::string& id);

/// Every registered task, sorted by id.
std::vector<const TaskSpec*> registered_tasks();

}  // namespace rkt

/// Declares a task: RKT_TASK(softmax).describe("...").input(...)...;
#define RKT_TASK(task_id)                                                                   \
  [[maybe_unused]] static ::rkt::TaskSpec& RKT_CONCAT(rkt_task_registration_, __COUNTER__) = \
      ::rkt::register_task(#task_id, __FILE__, __LINE__)

/// Declares the backward task of a forward task declared earlier in the same file:
/// RKT_BACKWARD_TASK(rkb_layernorm_backward, rkb_layernorm);
#define RKT_BACKWARD_TASK(task_id, forward_task_id)                                          \
  [[maybe_unused]] static ::rkt::TaskSpec& RKT_CONCAT(rkt_task_registration_, __COUNTER__) = \
      ::rkt::register_backward_task(#task_id, #forward_task_id, __FILE__, __LINE__)

#ifndef RKT_CONCAT
#define RKT_CONCAT_INNER(a, b) a##b
#define RKT_CONCAT(a, b) RKT_CONCAT_INNER(a, b)
#endif
