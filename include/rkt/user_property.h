// Properties users write for their own kernels or tasks: a rapidcheck generator for dims or
// inputs, and a check. Each becomes the test case `user_<name>` of every kernel it applies to,
// beside the generated ones, with the same seeds, shrinking, RC_PARAMS replay strings,
// supervision, `rkt list` and ctest entries (label "property") and `rkt test --json` records.
//
// A property runs in the judge: its generator and its check are code, so they are declared where
// judge code lives (tasks/, or a judge-side file of your suite: `target_sources(<suite> PRIVATE
// my_properties.cpp)`), never in a kernel file. Kernel files are compiled into the kernel
// library, which only the sandboxed worker loads; a check there could forge any verdict. What a
// kernel file may declare is data: the dims it supports (KernelSpec::supports).
//
//   ROBUST_PROPERTY(softmax, rows_sum_to_one)
//       .statement("every row of y sums to 1, whatever the offset")
//       .kernels({"cpu_tiled"})            // only these kernels of the task; default: all of them
//       .dims(rc::gen::map(rc::gen::inRange(1, 9),
//                          [](int tiles) { return rkt::Dims{{"N", 96 * tiles + 1}}; }))
//       .check([](const rkt::UserPropertyTrial& trial) -> std::string { ... return ""; });
#pragma once

#include <ATen/core/Tensor.h>
#include <rapidcheck.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

using Tensors = std::vector<at::Tensor>;

/// What a check sees of one trial.
struct UserPropertyTrial {
  Dims dims;        ///< The trial's dims (the test dims with the drawn ones on top).
  Tensors inputs;   ///< The inputs as drawn, on the CPU (the kernel ran on copies).
  Tensors outputs;  ///< The kernel's outputs, as float64 tensors on the CPU.
  /// The task's reference on the inputs, in float64 on the CPU (run only when the check asks).
  std::function<Tensors()> reference;
};

/// Draws dims: the ones to change from the test dims (the others keep their test size).
using DimsGenerator = rc::Gen<Dims>;
/// Draws a trial's inputs at `dims`: CPU tensors in the task's input order, shapes and dtypes.
using InputsGenerator = std::function<rc::Gen<Tensors>(const Dims& dims)>;
/// Judges one trial: "" when the property holds, else what is wrong (it becomes the message).
using PropertyCheck = std::function<std::string(const UserPropertyTrial& trial)>;

/// A property as declared; ROBUST_PROPERTY returns it for fluent configuration.
class UserProperty {
 public:
  UserProperty(std::string task_id, std::string name, std::string file, int line);

  /// What holds, for messages and listings.
  UserProperty& statement(std::string text);
  /// The kernels of the task it applies to (ids without the task). Default: every kernel.
  UserProperty& kernels(std::vector<std::string> kernel_ids);
  /// Draws the trial's dims. Trials outside the dims a kernel supports are discarded (counted).
  UserProperty& dims(DimsGenerator generator);
  /// Draws the trial's inputs. Without it, inputs are drawn from the task's laws with a drawn seed.
  UserProperty& inputs(InputsGenerator generator);
  /// Judges each trial. Without it, the kernel's outputs are judged against the float64
  /// reference, as in a correctness case (with the kernel's precision claim).
  UserProperty& check(PropertyCheck check);
  /// Trials instead of the property defaults (kPropertyTrialsCpu / kPropertyTrialsCuda).
  UserProperty& trials(int count);

  const std::string& task_id() const { return task_id_; }
  const std::string& name() const { return name_; }
  const std::string& statement() const { return statement_; }
  const std::vector<std::string>& kernel_ids() const { return kernel_ids_; }
  const std::optional<DimsGenerator>& dims_generator() const { return dims_; }
  const InputsGenerator& inputs_generator() const { return inputs_; }
  const PropertyCheck& check_function() const { return check_; }
  const std::optional<int>& trial_count() const { return trials_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  /// Whether the property applies to kernel `kernel_id` of its task.
  bool applies_to(const std::string& kernel_id) const;

 private:
  std::string task_id_, name_, statement_;
  std::vector<std::string> kernel_ids_;
  std::optional<DimsGenerator> dims_;
  InputsGenerator inputs_;
  PropertyCheck check_;
  std::optional<int> trials_;
  std::string file_;
  int line_ = 0;
};

UserProperty& register_user_property(const std::string& task_id, const std::string& name,
                                     const char* file, int line);

/// The properties declared on task `task_id`, in declaration order.
std::vector<const UserProperty*> user_properties_of(const std::string& task_id);

/// Every declared property, in declaration order.
std::vector<const UserProperty*> registered_user_properties();

}  // namespace rkt

#ifndef RKT_CONCAT
#define RKT_CONCAT_INNER(a, b) a##b
#define RKT_CONCAT(a, b) RKT_CONCAT_INNER(a, b)
#endif

/// Declares property `name` (an identifier; the case is `user_<name>`) on task `task_id`, in a
/// judge-side file: ROBUST_PROPERTY(softmax, rows_sum_to_one).dims(...).check(...);
#define ROBUST_PROPERTY(task_id, name)                                                           \
  [[maybe_unused]] static ::rkt::UserProperty& RKT_CONCAT(rkt_user_property_, __COUNTER__) = \
      ::rkt::register_user_property(#task_id, #name, __FILE__, __LINE__)
