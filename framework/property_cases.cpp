#include "framework/property_cases.h"

#include <rapidcheck.h>

#include <cmath>
#include <sstream>

#include "framework/correctness_case.h"
#include "framework/dim_resolution.h"
#include "framework/seeding.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::int64_t input_bytes(const TaskSpec& task, const Dims& dims) {
  std::int64_t total = 0;
  for (const InputSpec& input : task.inputs()) {
    std::int64_t elements = 1;
    for (std::int64_t size : resolve_dims(input.dims, dims)) elements *= size;
    total += elements * static_cast<std::int64_t>(element_size(input.dtype));
  }
  return total;
}

// Reports nothing while rapidcheck runs; the outcome message carries what matters.
class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

rc::detail::TestParams property_params(Device device) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  // RC_PARAMS wins where it names a setting; otherwise use our defaults and the run's seed.
  const char* rc_params = std::getenv("RC_PARAMS");
  const std::string user = rc_params ? rc_params : "";
  if (user.find("max_success") == std::string::npos) {
    params.maxSuccess = device == Device::cuda ? defaults::kPropertyTrialsCuda
                                               : defaults::kPropertyTrialsCpu;
  }
  if (user.find("seed") == std::string::npos) params.seed = base_seed() ^ secret_seed_part();
  return params;
}

}  // namespace

const std::vector<PropertyKind>& all_property_kinds() {
  static const std::vector<PropertyKind> kinds = {PropertyKind::shapes, PropertyKind::scale};
  return kinds;
}

const char* to_string(PropertyKind kind) {
  return kind == PropertyKind::shapes ? "shapes" : "scale";
}

Dims bounded_property_dims(const TaskSpec& task, Device device,
                           const std::function<std::int64_t(const std::string&, std::int64_t,
                                                            std::int64_t)>& draw) {
  const Dims& base = task.test_dims(device);
  Dims dims = base;
  for (const auto& [name, domain] : task.domains()) {
    const std::int64_t upper =
        std::max(domain.min, std::min(domain.max, defaults::kPropertyMaxDimFactor * base.at(name)));
    dims[name] = draw(name, domain.min, upper);
  }
  const std::int64_t budget = device == Device::cuda ? defaults::kPropertyInputBudgetCuda
                                                     : defaults::kPropertyInputBudgetCpu;
  while (input_bytes(task, dims) > budget) {
    std::string largest;
    for (const auto& [name, domain] : task.domains()) {
      if (dims[name] > domain.min && (largest.empty() || dims[name] > dims[largest])) {
        largest = name;
      }
    }
    if (largest.empty()) break;
    dims[largest] = std::max(task.domains().at(largest).min, dims[largest] / 2);
  }
  return dims;
}

CaseOutcome run_property(const KernelSpec& kernel, const TaskSpec& task, PropertyKind kind) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  if (kind == PropertyKind::shapes && task.domains().empty()) {
    return {CaseStatus::skipped,
            "task '" + task.id() + "' declares no dim domains, so shapes cannot vary"};
  }
  int dropped = 0;
  const std::size_t config_count = task.configs().size();
  const auto property = [&] {
    // Tasks with several configs: each trial runs under one of them, drawn like the dims.
    const TaskSpec& trial_task =
        config_count == 1
            ? task.configured(0)
            : task.configured(*rc::gen::inRange<std::size_t>(0, config_count).as("config"));
    CaseInputs inputs;
    inputs.seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 31).as("input seed");
    if (kind == PropertyKind::shapes) {
      inputs.distribution = "property shapes";
      inputs.dims = bounded_property_dims(
          trial_task, kernel.device(), [](const std::string& name, std::int64_t min, std::int64_t max) {
            return *rc::gen::inRange<std::int64_t>(min, max + 1).as("dim " + name);
          });
    } else {
      inputs.distribution = "property scale";
      inputs.dims = trial_task.test_dims(kernel.device());
      const int milli_decades = *rc::gen::inRange(-1000 * defaults::kPropertyScaleDecades,
                                                  1000 * defaults::kPropertyScaleDecades + 1)
                                     .as("log10(|scale|) x 1000");
      const bool negative = *rc::gen::arbitrary<bool>().as("negative scale");
      inputs.scale = (negative ? -1.0 : 1.0) * std::pow(10.0, milli_decades / 1000.0);
    }
    const CaseOutcome outcome = run_correctness_case(kernel, trial_task, inputs);
    if (outcome.status == CaseStatus::dropped) {
      ++dropped;
      RC_DISCARD(outcome.message);
    }
    if (outcome.status != CaseStatus::passed) RC_FAIL(outcome.message);
  };

  rc::detail::TestMetadata metadata;
  metadata.id = kernel.full_id() + "/property_" + to_string(kind);
  metadata.description = metadata.id;
  QuietListener listener;
  const rc::detail::TestParams params = property_params(kernel.device());
  const rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener,
                                rc::detail::configuration().reproduce);

  std::ostringstream message;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  if (result.match(success)) {
    message << metadata.id << ": " << success.numSuccess << " trials passed (rapidcheck seed "
            << params.seed << ")";
    if (dropped > 0) message << "; " << dropped << " trials dropped: reference not finite";
    return {CaseStatus::passed, message.str()};
  }
  if (result.match(failure)) {
    rc::detail::Configuration replay;
    replay.testParams = params;
    replay.reproduce[metadata.id] = failure.reproduce;
    message << metadata.id << " failed after " << failure.numSuccess
            << " passing trials; smallest failing case found by shrinking:\n  "
            << failure.description << "\n  counterexample:";
    for (const auto& [type, value] : failure.counterExample) {
      message << "\n    " << type << " = " << value;
    }
    message << "\n  replay it with: RC_PARAMS=\"" << rc::detail::configToString(replay) << "\"";
    return {CaseStatus::failed, message.str()};
  }
  if (result.match(gave_up)) {
    message << metadata.id << " gave up after " << gave_up.numSuccess
            << " passing trials: " << gave_up.description << " (" << dropped
            << " trials had a non-finite reference)";
    return {CaseStatus::failed, message.str()};
  }
  rc::detail::Error error("");
  result.match(error);
  return {CaseStatus::failed, metadata.id + ": rapidcheck error: " + error.description};
}

}  // namespace rkt
