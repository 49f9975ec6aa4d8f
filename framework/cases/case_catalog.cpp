#include "framework/cases/case_catalog.h"

#include <optional>

#include "framework/cases/case_announcement.h"
#include "framework/cases/correctness_case.h"
#include "framework/cases/integrity_cases.h"
#include "framework/cases/metamorphic_relations.h"
#include "framework/cases/property_cases.h"
#include "framework/cases/sanitizer_cases.h"
#include "framework/cases/user_property_cases.h"
#include "framework/cases/value_families.h"
#include "framework/dims/kernel_domain.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/inputs/input_scaling.h"
#include "framework/inputs/seeding.h"
#include "framework/runtime/off_stream_work_trace.h"

namespace rkt {
namespace {

// A hidden case's outcome, with its details withheld unless RKT_HIDDEN_VERBOSE=1.
CaseOutcome run_hidden_case(const KernelSpec& kernel, const TaskSpec& task,
                            const HiddenCase& hidden, std::size_t index) {
  CaseInputs inputs;
  inputs.dims = task.test_dims(kernel.device());
  inputs.distribution = "hidden " + std::to_string(index);
  inputs.seed = case_seed(task.id() + "/hidden_" + std::to_string(index));
  switch (hidden.kind) {
    case HiddenCase::Kind::scale: inputs.scale = hidden.scale; break;
    case HiddenCase::Kind::value_range: inputs.value_range = hidden.range; break;
    case HiddenCase::Kind::dims:
      for (const auto& [name, size] : hidden.dims) inputs.dims[name] = size;
      break;
  }
  // Dims outside what the kernel declares it supports are not its to pass; the message does not
  // say which restriction, since that would tell something about the secret dims.
  if (violated_restriction(kernel.supported_dims(), inputs.dims) != nullptr) {
    return {CaseStatus::skipped, kernel.full_id() + " hidden case " + std::to_string(index) +
                                     " skipped: its dims are outside the dims the kernel declares "
                                     "it supports"};
  }
  std::optional<WithheldCaseInputs> withheld;
  if (!hidden_details_allowed()) withheld.emplace();  // Not even a hung case names them.
  CaseOutcome outcome = run_correctness_case(kernel, task, inputs);
  if (hidden_details_allowed() || outcome.status == CaseStatus::skipped) return outcome;
  outcome.details = {};  // Its dims, scale and seed are as secret as its message.
  const std::string label = kernel.full_id() + " hidden case " + std::to_string(index);
  switch (outcome.status) {
    case CaseStatus::passed: outcome.message = label + " passed"; break;
    case CaseStatus::failed:
      outcome.message = label + " failed (its inputs are secret; where the hidden suite is "
                                "available, RKT_HIDDEN_VERBOSE=1 shows the details)";
      break;
    case CaseStatus::dropped:
      outcome.message =
          label + " dropped: the reference is not finite (or beyond the output's dtype) on these inputs";
      break;
    case CaseStatus::skipped: break;
  }
  return outcome;
}

// One distribution over every config of the task: a kernel must pass them all (robust-kbench's
// rule). The first failure ends the case; configs whose reference is not finite (or not
// representable in the output's dtype) are dropped.
CaseOutcome run_distribution_over_configs(const KernelSpec& kernel, const TaskSpec& task,
                                          const InputScaling& scaling) {
  const std::size_t count = task.configs().size();
  std::size_t dropped = 0;
  std::string passed_messages;
  for (std::size_t index = 0; index < count; ++index) {
    const TaskSpec& configured = task.configured(index);
    CaseInputs inputs;
    inputs.dims = configured.test_dims(kernel.device());
    inputs.scale = scaling.scale;
    inputs.distribution = scaling.name;
    // The seed depends on the task, config and distribution, not on the kernel: every kernel of
    // a task sees the same inputs in one run.
    inputs.seed = case_seed(task.id() + "/" + scaling.name +
                            (index == 0 ? "" : "/" + configured.config_name()));
    CaseOutcome outcome = run_correctness_case(kernel, configured, inputs);
    if (count > 1) outcome.message = "config " + configured.config_name() + ": " + outcome.message;
    if (outcome.status == CaseStatus::failed || outcome.status == CaseStatus::skipped) {
      return outcome;
    }
    if (outcome.status == CaseStatus::dropped) ++dropped;
    if (count == 1) return outcome;
    passed_messages += "\n  " + outcome.message;
  }
  if (dropped == count) {
    return {CaseStatus::dropped,
            "every config was dropped (reference not finite or beyond the output's dtype):" + passed_messages};
  }
  return {CaseStatus::passed, std::to_string(count - dropped) + " of " + std::to_string(count) +
                                  " configs passed" +
                                  (dropped ? " (" + std::to_string(dropped) + " dropped)" : "") +
                                  ":" + passed_messages};
}

}  // namespace

const std::vector<std::string>& case_labels() {
  static const std::vector<std::string> labels = {"correctness", "property", "integrity", "sanitizer"};
  return labels;
}

std::vector<KernelCase> cases_of(const KernelSpec& kernel, const TaskSpec& task) {
  std::vector<KernelCase> cases;
  // Integrity gates and hidden cases run on the primary config.
  const TaskSpec& primary = task.configured(0);
  for (const InputScaling& scaling : standard_scalings()) {
    cases.push_back({kernel.full_id(), "correctness_" + scaling.name, "correctness",
                     [&kernel, &task, scaling] {
                       return run_distribution_over_configs(kernel, task, scaling);
                     }});
  }
  // The value families the task declared (offset, mixed magnitudes, ties, signed zeros).
  for (ValueFamily family : value_families_of(task.id())) {
    cases.push_back({kernel.full_id(), std::string("values_") + to_string(family), "correctness",
                     [&kernel, &primary, family] {
                       return run_value_family_case(kernel, primary, family);
                     }});
  }
  // Metamorphic relations the task declared: the kernel against itself, no reference.
  for (const MetamorphicRelation& relation : relations_of(task.id())) {
    cases.push_back({kernel.full_id(), "relation_" + relation.name, "property",
                     [&kernel, &primary, &relation] {
                       return run_relation_case(kernel, primary, relation);
                     }});
  }
  for (PropertyKind kind : all_property_kinds()) {
    cases.push_back({kernel.full_id(), std::string("property_") + to_string(kind), "property",
                     [&kernel, &task, kind] { return run_property(kernel, task, kind); }});
  }
  // Properties users declared on the task or on this kernel (ROBUST_PROPERTY), run in the judge.
  for (const UserProperty* property : user_properties_of(task.id())) {
    if (!property->applies_to(kernel.kernel_id())) continue;
    cases.push_back({kernel.full_id(), "user_" + property->name(), "property",
                     [&kernel, &task, property] {
                       return run_user_property(kernel, task, *property);
                     }});
  }
  // The escaped-work gate reads the GPU's clock where device work can be traced; on the host's
  // clock, another judge's work on the GPU would read as work the kernel left behind, so it
  // then holds the GPU alone.
  const bool escaped_work_on_the_host_clock =
      kernel.device() == Device::cuda && !off_stream_tracing_unavailable_reason().empty();
  for (IntegrityGate gate : all_integrity_gates()) {
    cases.push_back(
        {kernel.full_id(), std::string("integrity_") + to_string(gate), "integrity",
         [&kernel, &primary, gate] { return run_integrity_case(kernel, primary, gate); },
         /*runs_beside=*/false,
         /*timed=*/gate == IntegrityGate::escaped_work && escaped_work_on_the_host_clock});
  }
  // compute-sanitizer over a small call, for kernels on a GPU (framework/cases/sanitizer_cases.h).
  if (kernel.device() == Device::cuda) {
    for (SanitizerTool tool : all_sanitizer_tools()) {
      cases.push_back({kernel.full_id(), std::string("sanitizer_") + to_string(tool), "sanitizer",
                       [&kernel, &primary, tool] { return run_sanitizer_case(kernel, primary, tool); },
                       /*runs_beside=*/true});
    }
  }
  const std::vector<HiddenCase>& suite = hidden_inputs().suite;
  for (std::size_t i = 0; i < suite.size(); ++i) {
    if (suite[i].kind == HiddenCase::Kind::dims && suite[i].task != task.id()) continue;
    cases.push_back({kernel.full_id(), "integrity_hidden_" + std::to_string(i + 1), "integrity",
                     [&kernel, &primary, hidden = suite[i], i] {
                       return run_hidden_case(kernel, primary, hidden, i + 1);
                     }});
  }
  return cases;
}

}  // namespace rkt
