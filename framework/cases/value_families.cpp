#include "framework/cases/value_families.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <map>

#include "framework/base/phase_times.h"
#include "framework/cases/case_announcement.h"
#include "framework/cases/correctness_case.h"
#include "framework/dims/kernel_domain.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/seeding.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::map<std::string, std::vector<ValueFamily>>& declared_families() {
  static std::map<std::string, std::vector<ValueFamily>> families;
  return families;
}

bool is_data(const InputSpec& input, const at::Tensor& tensor) {
  return tensor.is_floating_point() && input.is_scaled() && !input.is_weight;
}

// The standard deviation of `x`, or 1 when it has none (one element, or all equal).
double spread(const at::Tensor& x) {
  if (x.numel() < 2) return 1.0;
  const double s = x.to(at::kDouble).std().item<double>();
  return s > 0 ? s : 1.0;
}

}  // namespace

const char* to_string(ValueFamily family) {
  switch (family) {
    case ValueFamily::offset: return "offset";
    case ValueFamily::mixed_magnitudes: return "mixed_magnitudes";
    case ValueFamily::ties: return "ties";
    case ValueFamily::signed_zeros_denormals: return "signed_zeros_denormals";
  }
  return "?";
}

int register_value_families(const std::string& task_id, std::vector<ValueFamily> families,
                            const char*, int) {
  declared_families()[task_id] = std::move(families);
  return 0;
}

const std::vector<ValueFamily>& value_families_of(const std::string& task_id) {
  static const std::vector<ValueFamily> none;
  const auto found = declared_families().find(task_id);
  return found == declared_families().end() ? none : found->second;
}

std::vector<std::string> tasks_with_value_families() {
  std::vector<std::string> ids;
  for (const auto& [id, families] : declared_families()) ids.push_back(id);
  return ids;
}

const std::vector<ValueFamily>& all_value_families() {
  static const std::vector<ValueFamily> families = {
      ValueFamily::offset, ValueFamily::mixed_magnitudes, ValueFamily::ties,
      ValueFamily::signed_zeros_denormals};
  return families;
}

void apply_value_family(const TaskSpec& task, std::vector<at::Tensor>& inputs, ValueFamily family,
                        std::uint64_t seed) {
  // The transforms run where the inputs are (the kernel's device); their random parameters come
  // from a CPU generator and are moved there, so that a GPU case transforms with the values a CPU
  // case would (float64 arithmetic on either device, rounded once to the input's dtype).
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  for (std::size_t i = 0; i < inputs.size() && i < task.inputs().size(); ++i) {
    at::Tensor& x = inputs[i];
    if (!is_data(task.inputs()[i], x)) continue;
    const auto dtype = x.scalar_type();
    at::Tensor values = x.to(at::kDouble);
    switch (family) {
      case ValueFamily::offset:
        values = values + defaults::kValueOffsetStds * spread(values);
        break;
      case ValueFamily::mixed_magnitudes: {
        const at::Tensor decades =
            at::empty(values.sizes(), at::kDouble)
                .uniform_(-defaults::kValueMixedDecades, defaults::kValueMixedDecades, generator)
                .to(values.device());
        values = values * at::pow(10.0, decades);
        break;
      }
      case ValueFamily::ties: {
        const double grid = defaults::kValueTieGridStds * spread(values);
        values = at::round(values / grid) * grid;
        break;
      }
      case ValueFamily::signed_zeros_denormals: {
        // Denormals of float32 (below 1.18e-38): 1e-40 and the smallest, 1.4e-45.
        const at::Tensor specials = at::tensor({0.0, -0.0, 1e-40, -1e-40, 1.4e-45, -1.4e-45}, at::kDouble);
        const at::Tensor pick = at::randint(0, specials.numel(), values.sizes(), generator, at::kLong);
        const at::Tensor chosen =
            at::empty(values.sizes(), at::kDouble).uniform_(0, 1, generator) < defaults::kValueSpecialShare;
        const at::Tensor replacements = specials.index_select(0, pick.flatten()).view(values.sizes());
        values = at::where(chosen.to(values.device()), replacements.to(values.device()), values);
        break;
      }
    }
    x = values.to(dtype).contiguous();
    impose_structure(task.inputs()[i].values, x);  // a symmetric input stays symmetric, etc.
  }
}

CaseOutcome run_value_family_case(const KernelSpec& kernel, const TaskSpec& task,
                                  ValueFamily family) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  CaseInputs inputs;
  // The small (CI) size on every device: the families probe arithmetic, not size, and float32's
  // error norm bound separates the honest from the cancelling there. Measured on layernorm with the
  // offset family (10 stds): one-pass variance 3.6e-5 and a row-sequential float32 Welford 2.3e-6
  // at N = 300; at N = 8192 the sequential Welford itself reaches 1.6e-5, above fp32's 1e-5.
  // Moved inside the kernel's declared domain: a CUDA kernel declaring "N % 64 == 0" is tested at
  // the task's small size nearest to it, never outside what it declared.
  inputs.dims = dims_inside_domain(task.small_dims(), task, kernel.supported_dims());
  inputs.distribution = std::string("values ") + to_string(family);
  inputs.seed = case_seed(task.id() + "/values_" + to_string(family));
  const std::string where = kernel.full_id() + ", " + describe_case(inputs);
  PreparedCase prepared;
  try {
    // Drawn and transformed on the kernel's device, then placed in the kernel's buffers.
    announce_case_inputs(case_details(task, inputs));
    std::vector<at::Tensor> drawn;
    {
      ScopedPhase phase(Phase::drawing);
      drawn = generate_inputs(task, inputs.dims, inputs.seed, to_torch_device(kernel.device()));
      apply_value_family(task, drawn, family, inputs.seed);
    }
    prepared = prepare_given_inputs(kernel, task, std::move(drawn));
  } catch (const std::exception& error) {
    return {CaseStatus::failed, where + ": task '" + task.id() +
                                    "' could not prepare inputs: " + describe_exception(error)};
  }
  CaseOutcome outcome;
  try {
    const std::vector<at::Tensor> outputs =
        invoke_kernel(kernel, prepared.device_inputs, prepared.signatures).outputs;
    outcome = judge_outputs(kernel, task, where, prepared.drawn_inputs, prepared.signatures, outputs);
  } catch (const std::exception& error) {
    outcome = {CaseStatus::failed, where + ": " + describe_call_failure(error)};
  }
  outcome.details = case_details(task, inputs);
  return outcome;
}

}  // namespace rkt
