#include "framework/cases/user_property_cases.h"

#include <ATen/ATen.h>

#include <sstream>

#include "framework/cases/correctness_case.h"
#include "framework/cases/property_cases.h"
#include "framework/dims/dim_resolution.h"
#include "framework/dims/kernel_domain.h"
#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/runtime/kernel_execution.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// Inputs drawn by a property's generator, shown in counterexamples by shape and first values
// (rapidcheck would otherwise print every element of every tensor).
struct DrawnInputs {
  Tensors tensors;
};

void showValue(const DrawnInputs& drawn, std::ostream& os) {
  os << "[";
  for (std::size_t i = 0; i < drawn.tensors.size(); ++i) {
    const at::Tensor& t = drawn.tensors[i];
    os << (i ? ", " : "") << "tensor" << t.sizes() << " " << t.scalar_type();
    const at::Tensor flat = t.detach().reshape({-1}).to(at::kCPU).to(at::kDouble);
    const std::int64_t shown = std::min<std::int64_t>(flat.numel(), 4);
    os << " {";
    for (std::int64_t k = 0; k < shown; ++k) os << (k ? ", " : "") << flat[k].item<double>();
    os << (flat.numel() > shown ? ", ...}" : "}");
  }
  os << "]";
}

Tensors cpu_float64(const Tensors& tensors) {
  Tensors copies;
  for (const at::Tensor& t : tensors) copies.push_back(t.detach().to(at::kCPU).to(at::kDouble));
  return copies;
}

// One trial of `property` on `kernel`; `details` gets the trial's dims (and seed).
CaseOutcome run_trial(const KernelSpec& kernel, const TaskSpec& task, const UserProperty& property,
                      CaseDetails& details) {
  CaseInputs inputs;
  inputs.dims = task.test_dims(kernel.device());
  if (property.dims_generator()) {
    const Dims drawn = *rc::Gen<Dims>(*property.dims_generator()).as("dims");
    for (const auto& [name, size] : drawn) {
      if (inputs.dims.count(name) == 0) {
        return {CaseStatus::failed, "the property's dims generator drew '" + name +
                                        "', which task '" + task.id() + "' does not have"};
      }
      const auto domain = task.domains().find(name);
      const bool inside = domain == task.domains().end()
                              ? size >= 1
                              : size >= domain->second.min && size <= domain->second.max;
      if (!inside) {
        return {CaseStatus::failed, "the property's dims generator drew " + name + "=" +
                                        std::to_string(size) + ", outside task '" + task.id() +
                                        "''s domain of " + name};
      }
      inputs.dims[name] = size;
    }
  }
  if (property.inputs_generator()) {
    inputs.distribution = "user property " + property.name() + " (inputs drawn by the property)";
  } else {
    inputs.distribution = "user property " + property.name();
    inputs.seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 31).as("input seed");
  }
  details = case_details(task, inputs);
  if (const DimRestriction* outside = violated_restriction(kernel.supported_dims(), inputs.dims)) {
    return {CaseStatus::dropped, "dims " + format_dims(inputs.dims) +
                                     " are outside what the kernel declares it supports (" +
                                     outside->describe() + ")"};
  }
  const std::string where = kernel.full_id() + ", " + describe_case(inputs) +
                            (property.statement().empty() ? "" : ", " + property.statement());
  Tensors host;
  if (property.inputs_generator()) {
    host = (*rc::gen::map(property.inputs_generator()(inputs.dims),
                          [](Tensors tensors) { return DrawnInputs{std::move(tensors)}; })
                 .as("inputs"))
               .tensors;
    if (host.size() != task.inputs().size()) {
      return {CaseStatus::failed, where + ": the property's inputs generator drew " +
                                      std::to_string(host.size()) + " tensors; task '" + task.id() +
                                      "' has " + std::to_string(task.inputs().size()) + " inputs"};
    }
  }
  PreparedCase prepared;
  try {
    prepared = property.inputs_generator() ? prepare_given_inputs(kernel, task, host)
                                           : prepare_case(kernel, task, inputs, DrawOn::cpu);
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": could not prepare the inputs: " + describe_exception(error)};
  }
  Tensors outputs;
  try {
    outputs = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures).outputs;
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": " + describe_call_failure(error)};
  }
  if (!property.check_function()) {
    return judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures, outputs);
  }
  UserPropertyTrial trial;
  trial.dims = inputs.dims;
  trial.inputs = prepared.drawn_inputs;
  trial.outputs = cpu_float64(outputs);
  trial.reference = [&task, &prepared] {
    return run_reference_float64(task, prepared.drawn_inputs, Device::cpu);
  };
  std::string problem;
  try {
    problem = property.check_function()(trial);
  } catch (const std::exception& error) {
    problem = "the property's check threw: " + describe_exception(error);
  }
  if (!problem.empty()) return {CaseStatus::failed, where + ": " + problem};
  return {CaseStatus::passed, where + ": holds"};
}

}  // namespace

CaseOutcome run_user_property(const KernelSpec& kernel, const TaskSpec& task,
                              const UserProperty& property) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  const TaskSpec& primary = task.configured(0);
  PropertyOptions options;
  options.id = kernel.full_id() + "/user_" + property.name();
  options.device = kernel.device();
  options.supported = kernel.supported_dims();
  options.trials = property.trial_count();
  const int trials =
      kernel.device() == Device::cuda ? defaults::kPropertyTrialsCuda : defaults::kPropertyTrialsCpu;
  const std::vector<PropertyPhase> phases = {{"", trials, 0, DimTier::edges, 0}};
  return run_property_phases(options, phases,
                             [&](const PropertyPhase&, CaseDetails& details, const TrialGate&) {
                               return run_trial(kernel, primary, property, details);
                             });
}

}  // namespace rkt
