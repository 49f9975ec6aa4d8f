#include "framework/correctness_case.h"

#include <ATen/ATen.h>

#include <sstream>

#include "framework/device_support.h"
#include "framework/dim_resolution.h"
#include "framework/input_generation.h"
#include "framework/input_scaling.h"
#include "framework/kernel_invocation.h"
#include "framework/output_comparison.h"
#include "framework/torch_bridge.h"

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
  text << "distribution " << inputs.distribution << " (scale " << inputs.scale << "), dims "
       << format_dims(inputs.dims) << ", seed " << inputs.seed;
  return text.str();
}

CaseOutcome run_correctness_case(const KernelSpec& kernel, const TaskSpec& task,
                                 const CaseInputs& case_inputs) {
  const std::string where = kernel.full_id() + ", " + describe_case(case_inputs);
  if (!device_available(kernel.device())) {
    return {CaseStatus::skipped, kernel.full_id() + " needs " + to_string(kernel.device()) +
                                     ": " + device_unavailable_reason(kernel.device())};
  }
  std::vector<at::Tensor> inputs;
  std::vector<OutputSignature> signatures;
  try {
    inputs = generate_inputs(task, case_inputs.dims, case_inputs.seed);
    scale_floating_inputs(task, inputs, case_inputs.scale);
    signatures = infer_output_signatures(task, inputs, kernel.device());
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": task '" + task.id() +
                                    "' could not prepare inputs: " + describe_exception(error)};
  }
  std::vector<at::Tensor> device_inputs;
  for (const at::Tensor& input : inputs) {
    device_inputs.push_back(input.to(to_torch_device(kernel.device())));
  }

  std::vector<at::Tensor> outputs;
  try {
    outputs = invoke_kernel(kernel, device_inputs, signatures);
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": the kernel threw: " + describe_exception(error)};
  }

  // The reference runs after the kernel, on fresh copies of the drawn inputs (never on the
  // buffers the kernel saw), on the kernel's device so that large cases stay fast.
  std::vector<at::Tensor> reference;
  try {
    reference = run_reference_float64(task, inputs, kernel.device());
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": the reference of task '" + task.id() +
                                    "' threw: " + describe_exception(error)};
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

  const Tolerance tolerance = task.tolerance(kernel.precision());
  std::ostringstream failures;
  std::ostringstream summary;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputCheck check =
        check_output(outputs[i], reference[i], signatures[i].dtype,
                     to_torch_device(kernel.device()), tolerance);
    const std::string& name = task.output_names()[i];
    if (!check.passed) failures << " output '" << name << "': " << check.message << ".";
    summary << " output '" << name << "': max |out-ref| " << check.max_abs_error
            << ", relative error norm " << check.relative_error_norm << ".";
  }
  const std::string claim = std::string(" [claims ") + to_string(kernel.precision()) + "]";
  if (!failures.str().empty()) {
    std::string reason = task.tolerance_reason(kernel.precision());
    return {CaseStatus::failed, where + claim + ":" + failures.str() +
                                    (reason.empty() ? "" : " (tolerance widened: " + reason + ")")};
  }
  return {CaseStatus::passed, where + claim + ":" + summary.str()};
}

}  // namespace rkt
