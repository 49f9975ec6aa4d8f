#include "framework/case_catalog.h"

#include "framework/correctness_case.h"
#include "framework/input_scaling.h"
#include "framework/property_cases.h"
#include "framework/seeding.h"

namespace rkt {

const std::vector<std::string>& case_labels() {
  static const std::vector<std::string> labels = {"correctness", "property"};
  return labels;
}

std::vector<KernelCase> cases_of(const KernelSpec& kernel, const TaskSpec& task) {
  std::vector<KernelCase> cases;
  for (const InputScaling& scaling : standard_scalings()) {
    cases.push_back({kernel.full_id(), "correctness_" + scaling.name, "correctness",
                     [&kernel, &task, scaling] {
                       CaseInputs inputs;
                       inputs.dims = task.test_dims(kernel.device());
                       inputs.scale = scaling.scale;
                       inputs.distribution = scaling.name;
                       // The seed depends on the task and distribution, not on the kernel:
                       // every kernel of a task sees the same inputs in one run.
                       inputs.seed = case_seed(task.id() + "/" + scaling.name);
                       return run_correctness_case(kernel, task, inputs);
                     }});
  }
  for (PropertyKind kind : all_property_kinds()) {
    cases.push_back({kernel.full_id(), std::string("property_") + to_string(kind), "property",
                     [&kernel, &task, kind] { return run_property(kernel, task, kind); }});
  }
  return cases;
}

}  // namespace rkt
