#include "framework/cases/correctness_case.h"

#include <ATen/ATen.h>

#include <sstream>

#include "framework/comparison/derived_tolerance.h"
#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/dims/dim_resolution.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/input_scaling.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/torch_bridge.h"

namespace rkt {

const char* to_string(CaseStatus status) {
  switch (status) {
    case CaseStatus::passed: return "passed";
    case CaseStatus::failed: return "failed";
    case CaseStatus::dropped: return "dropped";
    case CaseStatus::skipped: return "skipped";
  }
  return "?";
}

std::string describe_case(const CaseInputs& inputs) {
  std::ostringstream text;
  text << "distribution " << inputs.distribution << " (scale " << inputs.scale;
  if (inputs.value_range) {
    text << ", values U[" << inputs.value_range->first << ", " << inputs.value_range->second
         << ")";
  }
  text << "), dims " << format_dims(inputs.dims) << ", ";
  // A case seed, with the public base seed, would give the secret away.
  if (secret_seed_part() != 0 && !hidden_details_allowed()) {
    text << "seed withheld (secret seed in use)";
  } else {
    text << "seed " << inputs.seed;
  }
  return text.str();
}

PreparedCase prepare_case(const KernelSpec& kernel, const TaskSpec& task,
                          const CaseInputs& case_inputs) {
  PreparedCase prepared;
  prepared.host_inputs = generate_inputs(task, case_inputs.dims, case_inputs.seed);
  if (case_inputs.value_range) {
    for (std::size_t i = 0; i < prepared.host_inputs.size(); ++i) {
      if (task.inputs()[i].is_scaled() && prepared.host_inputs[i].is_floating_point()) {
        prepared.host_inputs[i].uniform_(case_inputs.value_range->first,
                                         case_inputs.value_range->second);
        impose_structure(task.inputs()[i].values, prepared.host_inputs[i]);  // symmetric stays so
      }
    }
  }
  scale_floating_inputs(task, prepared.host_inputs, case_inputs.scale);
  return prepare_given_inputs(kernel, task, std::move(prepared.host_inputs));
}

PreparedCase prepare_given_inputs(const KernelSpec& kernel, const TaskSpec& task,
                                  std::vector<at::Tensor> host_inputs) {
  PreparedCase prepared;
  prepared.host_inputs = std::move(host_inputs);
  prepared.signatures = infer_output_signatures(task, prepared.host_inputs, kernel.device());
  for (const at::Tensor& input : prepared.host_inputs) {
    prepared.device_inputs.push_back(copy_for_kernel(input, kernel));
  }
  return prepared;
}

CaseOutcome judge_outputs(const KernelSpec& kernel, const TaskSpec& task, const std::string& where,
                          const std::vector<at::Tensor>& host_inputs,
                          const std::vector<OutputSignature>& signatures,
                          const std::vector<at::Tensor>& outputs) {
  // The reference runs after the kernel, on fresh copies of the drawn inputs (never on the
  // buffers the kernel saw), on the kernel's device so that large cases stay fast.
  std::vector<at::Tensor> reference;
  try {
    reference = run_reference_float64(task, host_inputs, kernel.device());
  } catch (const std::exception& error) {
    return {CaseStatus::failed,
            where + ": the reference of task '" + task.id() + "' threw: " + describe_exception(error)};
  }
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (!all_finite(reference[i])) {
      return {CaseStatus::dropped, where + ": the reference's output '" + task.output_names()[i] +
                                       "' has NaN/Inf on these inputs, so the case is dropped"};
    }
  }
  if (outputs.size() != signatures.size()) {
    return {CaseStatus::failed, where + ": the kernel returned " + std::to_string(outputs.size()) +
                                    " outputs; the task has " +
                                    std::to_string(signatures.size())};
  }
  const Tolerance floor = task.tolerance(kernel.precision());
  std::ostringstream failures;
  std::ostringstream summary;
  const double scale_floor = numerically_zero_floor(reference);
  // Below fp32 the bound is derived from an honest kernel of the claimed class on these inputs
  // (framework/comparison/derived_tolerance.h); computed from the inputs alone, never from the kernel's side.
  std::vector<std::vector<at::Tensor>> honest;  // [sample][output]
  if (kernel.precision() != Precision::fp32) {
    try {
      honest = honest_output_samples(task, host_inputs, kernel.precision(), kernel.device());
    } catch (const std::exception&) {
      honest.clear();  // A reference without float32 support: the class's floor alone.
    }
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    std::vector<at::Tensor> samples;
    for (const auto& sample : honest) {
      if (i < sample.size()) samples.push_back(sample[i]);
    }
    const Tolerance tolerance =
        samples.empty() ? floor
                        : derived_tolerance(floor, kernel.precision(), reference[i], samples, scale_floor);
    const OutputCheck check = check_output(outputs[i], reference[i], signatures[i].dtype,
                                           to_torch_device(kernel.device()), tolerance,
                                           scale_floor);
    const std::string& name = task.output_names()[i];
    if (!check.passed) failures << " output '" << name << "': " << check.message << ".";
    summary << " output '" << name << "': max |out-ref| " << check.max_abs_error
            << ", relative error norm " << check.relative_error_norm << ".";
  }
  const std::string claim = std::string(" [claims ") + to_string(kernel.precision()) + "]";
  if (!failures.str().empty()) {
    const std::string reason = task.tolerance_reason(kernel.precision());
    return {CaseStatus::failed, where + claim + ":" + failures.str() +
                                    (reason.empty() ? "" : " (tolerance widened: " + reason + ")")};
  }
  return {CaseStatus::passed, where + claim + ":" + summary.str()};
}

std::optional<CaseOutcome> skip_if_device_missing(const KernelSpec& kernel) {
  if (device_available(kernel.device())) return std::nullopt;
  return CaseOutcome{CaseStatus::skipped, kernel.full_id() + " needs " +
                                              to_string(kernel.device()) + ": " +
                                              device_unavailable_reason(kernel.device())};
}

namespace {

CaseOutcome run_and_judge(const KernelSpec& kernel, const TaskSpec& task,
                          const CaseInputs& case_inputs) {
  const std::string where = kernel.full_id() + ", " + describe_case(case_inputs);
  PreparedCase prepared;
  try {
    prepared = prepare_case(kernel, task, case_inputs);
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": task '" + task.id() +
                                    "' could not prepare inputs: " + describe_exception(error)};
  }
  std::vector<at::Tensor> outputs;
  try {
    outputs = invoke_kernel(kernel, prepared.device_inputs, prepared.signatures).outputs;
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": the kernel threw: " + describe_exception(error)};
  }
  return judge_outputs(kernel, task, where, prepared.host_inputs, prepared.signatures, outputs);
}

}  // namespace

CaseDetails case_details(const TaskSpec& task, const CaseInputs& inputs) {
  CaseDetails details;
  details.known = true;
  details.dims = inputs.dims;
  details.scale = inputs.scale;
  details.config = task.config_name();
  // A case seed, with the public base seed, would give a secret seed away (see describe_case).
  details.seed_known = secret_seed_part() == 0 || hidden_details_allowed();
  if (details.seed_known) {
    details.seed = inputs.seed;
    details.reproduce = "RKT_SEED=" + std::to_string(base_seed());
  }
  return details;
}

CaseOutcome run_correctness_case(const KernelSpec& kernel, const TaskSpec& task,
                                 const CaseInputs& case_inputs) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  CaseOutcome outcome = run_and_judge(kernel, task, case_inputs);
  outcome.details = case_details(task, case_inputs);
  return outcome;
}

}  // namespace rkt
