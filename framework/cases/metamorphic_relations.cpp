#include "framework/cases/metamorphic_relations.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "framework/base/phase_times.h"
#include "framework/cases/correctness_case.h"
#include "framework/comparison/derived_tolerance.h"
#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/dims/kernel_domain.h"
#include "framework/inputs/seeding.h"
#include "framework/runtime/torch_bridge.h"

namespace rkt {
namespace {

std::map<std::string, std::vector<MetamorphicRelation>>& declared_relations() {
  static std::map<std::string, std::vector<MetamorphicRelation>> relations;
  return relations;
}

Tensors to_double(const Tensors& tensors) {
  Tensors converted;
  for (const at::Tensor& t : tensors) converted.push_back(t.detach().to(at::kDouble));
  return converted;
}

Tensors on_device(const Tensors& tensors, Device device) {
  Tensors copies;
  for (const at::Tensor& t : tensors) {
    copies.push_back(t.to(to_torch_device(device), /*non_blocking=*/false, /*copy=*/true));
  }
  return copies;
}

}  // namespace

int register_relation(const std::string& task_id, MetamorphicRelation relation, const char*, int) {
  declared_relations()[task_id].push_back(std::move(relation));
  return 0;
}

const std::vector<MetamorphicRelation>& relations_of(const std::string& task_id) {
  static const std::vector<MetamorphicRelation> none;
  const auto found = declared_relations().find(task_id);
  return found == declared_relations().end() ? none : found->second;
}

std::vector<std::string> tasks_with_relations() {
  std::vector<std::string> ids;
  for (const auto& [id, relations] : declared_relations()) ids.push_back(id);
  return ids;
}

namespace relations {
double uniform(at::Generator& generator, double low, double high) {
  return at::empty({1}, at::kDouble).uniform_(low, high, generator).item<double>();
}
double power_of_two(at::Generator& generator, int low, int high) {
  int k = 0;
  while (k == 0) k = static_cast<int>(std::floor(uniform(generator, low, high + 1.0)));
  return std::ldexp(1.0, std::min(k, high));
}
at::Tensor scaled(const at::Tensor& x, double factor) { return (x.to(at::kDouble) * factor).to(x.scalar_type()); }
at::Tensor shifted(const at::Tensor& x, double offset) { return (x.to(at::kDouble) + offset).to(x.scalar_type()); }
}  // namespace relations

CaseOutcome run_relation_case(const KernelSpec& kernel, const TaskSpec& task,
                              const MetamorphicRelation& relation) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  CaseInputs inputs;
  // The test dims lie inside the declared domain (registration refuses a kernel otherwise);
  // dims_inside_domain keeps it so should a relation ever run elsewhere.
  inputs.dims = dims_inside_domain(task.test_dims(kernel.device()), task, kernel.supported_dims());
  inputs.distribution = "relation " + relation.name;
  inputs.seed = case_seed(task.id() + "/relation_" + relation.name);
  const std::string where = kernel.full_id() + ", " + describe_case(inputs) + ", " + relation.statement;
  PreparedCase prepared;
  RelationInstance instance;
  try {
    // Drawn on the kernel's device: the relation's transform runs where the inputs are (its
    // random parameters come from a CPU generator and are moved there), so a case at the
    // benchmark size on a GPU never crosses to the host.
    prepared = prepare_case(kernel, task, inputs);
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(inputs.seed ^ 0x7e1a7e1aull);
    instance = relation.draw(prepared.drawn_inputs, generator);
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": could not prepare the relation's inputs: " +
                                    describe_exception(error)};
  }
  const std::string drawn = where + (instance.drawn.empty() ? "" : " (" + instance.drawn + ")");
  Tensors first, second;
  try {
    first = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures).outputs;
    second = invoke_kernel(kernel, on_device(instance.transformed, kernel.device()),
                           prepared.signatures).outputs;
  } catch (const std::exception& error) {
    return {CaseStatus::failed, drawn + ": " + describe_call_failure(error)};
  }
  // What an honest kernel of the claimed class gives on both input sets, from the inputs alone.
  Tensors predicted, honest_predicted, honest_second;
  try {
    for (const at::Tensor& output : first) {
      if (!all_finite(output)) {
        return {CaseStatus::failed, drawn + ": the first run's outputs have NaN/Inf"};
      }
    }
    ScopedPhase phase(Phase::references);
    predicted = instance.expected(to_double(first));
    honest_predicted = instance.expected(honest_outputs(task, prepared.drawn_inputs, kernel.precision(), kernel.device()));
    honest_second = honest_outputs(task, instance.transformed, kernel.precision(), kernel.device());
  } catch (const std::exception& error) {
    return {CaseStatus::failed, drawn + ": the relation could not be evaluated: " +
                                    describe_exception(error)};
  }
  Tolerance floor = task.tolerance(kernel.precision());
  floor.atol *= 2;  // Two kernel runs, each with its own rounding.
  floor.rtol *= 2;
  floor.max_relative_error_norm *= 2;
  const double scale_floor = numerically_zero_floor(predicted);
  std::ostringstream failures, summary;
  for (std::size_t i = 0; i < second.size() && i < predicted.size(); ++i) {
    const Tolerance tolerance =
        derived_tolerance(floor, kernel.precision(), honest_predicted[i], honest_second[i], scale_floor);
    const OutputCheck check = check_output(second[i], predicted[i], prepared.signatures[i].dtype,
                                           to_torch_device(kernel.device()), tolerance, scale_floor);
    const std::string& name = task.output_names()[i];
    if (!check.passed) failures << " output '" << name << "': " << check.message << ".";
    summary << " output '" << name << "': relative error norm " << check.relative_error_norm << ".";
  }
  CaseOutcome outcome;
  const std::string claim = std::string(" [claims ") + to_string(kernel.precision()) + "]";
  outcome = failures.str().empty()
                ? CaseOutcome{CaseStatus::passed, drawn + claim + ":" + summary.str()}
                : CaseOutcome{CaseStatus::failed,
                              drawn + claim + ": the second run misses what the relation predicts "
                                              "from the first:" + failures.str()};
  outcome.details = case_details(task, inputs);
  return outcome;
}

}  // namespace rkt
