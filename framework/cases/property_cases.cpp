#include "framework/cases/property_cases.h"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "framework/dims/dim_resolution.h"
#include "framework/dims/kernel_domain.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/timing/device_lease.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// rapidcheck's description of a property run that passed (rapidcheck/detail/Property.hpp).
constexpr const char* kRapidcheckPassedDescription = "no exceptions thrown";

// rapidcheck's failure description starts with where RC_FAIL stands in the framework
// ("../../framework/cases/property_cases.cpp:150:" and "RC_FAIL(outcome.message)"): noise for
// a kernel's author, who needs the outcome's message that follows.
std::string without_assertion_location(const std::string& description) {
  std::istringstream lines(description);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    const bool location = line.find(".cpp:") != std::string::npos &&
                          line.find("framework/") != std::string::npos && line.back() == ':';
    const bool assertion = line.rfind("RC_FAIL(", 0) == 0 || line.rfind("RC_ASSERT(", 0) == 0;
    if (location || assertion || (kept.empty() && line.empty())) continue;
    kept += (kept.empty() ? "" : "\n") + line;
  }
  return kept;
}

// What the shrunk case's failure was. rapidcheck runs the smallest failing case once more to
// describe it; where that run passed (a failure that does not repeat: the GPU's memory taken by
// other judges, run 46, or a race in the kernel) its description is its success text, and the
// failing run's message is the one that says why.
std::string failure_description(const std::string& described, const std::string& failing_message) {
  if (described != kRapidcheckPassedDescription || failing_message.empty()) return described;
  return "the smallest failing case passed when run again to be reported (a failure that does "
         "not repeat: another judge's use of the GPU, a race); its failing run said: " +
         failing_message;
}

// Reports nothing while rapidcheck runs; the outcome message carries what matters.
class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

bool user_sets(const char* setting) {
  const char* rc_params = std::getenv("RC_PARAMS");
  return rc_params != nullptr && std::string(rc_params).find(setting) != std::string::npos;
}

// The seed of phase `index`: the first phase keeps the property's seed (what the message prints).
std::uint64_t phase_seed(std::uint64_t seed, std::size_t index) {
  return index == 0 ? seed : seed ^ (0x9e3779b97f4a7c15ull * index);
}

bool same_trial(const CaseDetails& a, const CaseDetails& b) {
  return a.dims == b.dims && a.scale == b.scale && a.seed == b.seed && a.config == b.config;
}

std::string phase_id(const std::string& id, const PropertyPhase& phase) {
  return phase.name.empty() ? id : id + "/" + phase.name;
}

}  // namespace

const std::vector<PropertyKind>& all_property_kinds() {
  static const std::vector<PropertyKind> kinds = {PropertyKind::shapes, PropertyKind::scale};
  return kinds;
}

const char* to_string(PropertyKind kind) {
  return kind == PropertyKind::shapes ? "shapes" : "scale";
}

std::vector<PropertyPhase> property_phases(PropertyKind kind, Device device) {
  if (kind == PropertyKind::scale) {
    return {{"", device == Device::cuda ? defaults::kPropertyTrialsCuda : defaults::kPropertyTrialsCpu,
             0, DimTier::edges, 0}};
  }
  if (device == Device::cpu) {
    return {{"", defaults::kPropertyTrialsCpu, defaults::kPropertyInputBudgetCpu, DimTier::edges, 0},
            {"whole_domain", defaults::kPropertyWholeDomainTrialsPerDim,
             defaults::kPropertyWholeDomainInputBudgetCpu, DimTier::whole_domain, 0}};
  }
  return {{"", defaults::kPropertySmallTrialsCuda, defaults::kPropertySmallInputBudgetCuda,
           DimTier::edges, defaults::kPropertySmallTrialsSecondsCuda},
          {"full_size", defaults::kPropertyFullSizeTrialsCuda, defaults::kPropertyInputBudgetCuda,
           DimTier::full_size, 0},
          {"whole_domain", defaults::kPropertyWholeDomainTrialsPerDim,
           defaults::kPropertyWholeDomainInputBudgetCuda, DimTier::whole_domain, 0}};
}

std::int64_t input_bytes(const TaskSpec& task, const Dims& dims) {
  std::int64_t total = 0;
  for (const InputSpec& input : task.inputs()) {
    if (input.like_output >= 0) continue;  // Shaped like an output: no symbolic dims to resolve.
    std::int64_t elements = 1;
    for (std::int64_t size : resolve_dims(input.dims, dims)) elements *= size;
    total += elements * static_cast<std::int64_t>(element_size(input.dtype));
  }
  return total;
}

std::map<std::string, DimRange> property_dim_ranges(const TaskSpec& task, Device device,
                                                    const std::vector<DimRestriction>& supported,
                                                    DimTier tier) {
  const Dims& base = task.test_dims(device);
  std::map<std::string, DimRange> ranges;
  for (const auto& [name, domain] : task.domains()) {
    const std::int64_t test_size = base.at(name);
    const std::int64_t upper =
        tier == DimTier::whole_domain
            ? domain.max
            : std::max(domain.min, std::min(domain.max, defaults::kPropertyMaxDimFactor * test_size));
    ranges[name] = restrict_range({domain.min, upper, test_size, 1}, name, supported);
  }
  return ranges;
}

Dims fit_to_input_budget(const TaskSpec& task, Dims dims, std::int64_t budget,
                         const std::map<std::string, DimRange>& ranges) {
  while (input_bytes(task, dims) > budget) {
    std::string chosen;
    for (const bool large_too : {false, true}) {
      for (const auto& [name, range] : ranges) {
        const bool large = dims[name] >= large_dim_floor(range) && range.max > range.test_size;
        if (dims[name] <= range.min || (large && !large_too)) continue;
        if (chosen.empty() || dims[name] > dims[chosen]) chosen = name;
      }
      if (!chosen.empty()) break;
    }
    if (chosen.empty()) break;  // Every dim at its minimum: the trial runs as it is.
    const DimRange& range = ranges.at(chosen);
    dims[chosen] = std::max(range.min, dims[chosen] / 2 / range.step * range.step);
  }
  return dims;
}

CaseOutcome run_property_phases(const PropertyOptions& options,
                                const std::vector<PropertyPhase>& phases,
                                const PropertyBody& body) {
  const auto& reproduce = rc::detail::configuration().reproduce;
  // Replaying a failure (RC_PARAMS="reproduce=..."): only the phases it names run.
  bool replaying = false;
  for (const PropertyPhase& phase : phases) replaying |= reproduce.count(phase_id(options.id, phase)) > 0;

  const std::uint64_t seed = options.seed ? *options.seed
                             : user_sets("seed") ? rc::detail::configuration().testParams.seed
                                                 : base_seed() ^ secret_seed_part();
  std::ostringstream passed;
  passed << options.id << ":";
  for (std::size_t index = 0; index < phases.size(); ++index) {
    const PropertyPhase& phase = phases[index];
    const std::string id = phase_id(options.id, phase);
    if (replaying && reproduce.count(id) == 0) continue;

    int dropped = 0, ran = 0, not_run = 0, shrinks_not_tried = 0;
    std::string dropped_reason;
    bool failure_seen = false;
    std::size_t lost_at_first_failure = 0;  // workers lost (kernel_library.h) when it was seen
    CaseDetails failing;
    std::string failing_message;  // the last failing trial's: the shrunk case's
    const auto start = std::chrono::steady_clock::now();
    // Once kShrinkingWorkerLossLimit more workers were lost while shrinking, smaller candidates
    // are not run (not a failure, so rapidcheck keeps the smallest failing trial so far); the
    // failing trial itself still runs, as rapidcheck runs its counterexample once more at the end.
    const TrialGate may_run = [&](const CaseDetails& trial) {
      const auto limit = static_cast<std::size_t>(defaults::kShrinkingWorkerLossLimit);
      if (!failure_seen || workers_lost() - lost_at_first_failure < limit ||
          same_trial(trial, failing)) {
        return true;
      }
      ++shrinks_not_tried;
      return false;
    };
    const auto property = [&] {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (phase.time_budget_seconds > 0 && !failure_seen && elapsed > phase.time_budget_seconds) {
        ++not_run;  // Counted and reported: the trials this phase had no time for.
        return;
      }
      ++ran;
      CaseDetails details;
      const CaseOutcome outcome = body(phase, details, may_run);
      if (outcome.status == CaseStatus::dropped) {
        ++dropped;
        if (dropped_reason.empty()) dropped_reason = outcome.message;
        RC_DISCARD(outcome.message);
      }
      if (outcome.status != CaseStatus::passed) {
        // Shrinking keeps the last failing candidate, so the last one recorded is the shrunk case.
        if (!failure_seen) lost_at_first_failure = workers_lost();
        failure_seen = true;
        failing = details;
        failing_message = outcome.message;
        RC_FAIL(outcome.message);
      }
    };

    rc::detail::TestMetadata metadata;
    metadata.id = id;
    metadata.description = id;
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    if (!user_sets("max_success")) params.maxSuccess = options.trials ? *options.trials : phase.trials;
    params.seed = phase_seed(seed, index);
    QuietListener listener;
    const rc::detail::TestResult result = rc::detail::checkProperty(
        rc::detail::toProperty(property), metadata, params, listener, reproduce);

    std::ostringstream message;
    rc::detail::SuccessResult success;
    rc::detail::FailureResult failure;
    rc::detail::GaveUpResult gave_up;
    if (result.match(success)) {
      passed << (index ? ";" : "") << " " << (phase.name.empty() ? "" : phase.name + ": ")
             << ran << " trials passed";
      if (not_run > 0) {
        passed << " (" << not_run << " more not run: the " << phase.time_budget_seconds
               << " s budget of this phase was spent)";
      }
      passed << " (rapidcheck seed " << params.seed << ")";
      if (dropped > 0) passed << "; " << dropped << " trials dropped, e.g. " << dropped_reason;
      continue;
    }
    if (result.match(failure)) {
      rc::detail::Configuration replay;
      replay.testParams = params;
      replay.reproduce[id] = failure.reproduce;
      const std::string replay_text = rc::detail::configToString(replay);
      message << id << " failed after " << failure.numSuccess << " passing trials; "
              << (shrinks_not_tried > 0 ? "smallest failing case found before shrinking stopped ("
                                        : "smallest failing case found by shrinking:\n  ");
      if (shrinks_not_tried > 0) {
        message << defaults::kShrinkingWorkerLossLimit
                << " more workers were lost to the kernel while "
                << "shrinking; " << shrinks_not_tried << " smaller candidates not tried):\n  ";
      }
      message << failure_description(without_assertion_location(failure.description),
                                     failing_message)
              << "\n  counterexample:";
      for (const auto& [type, value] : failure.counterExample) {
        message << "\n    " << type << " = " << value;
      }
      message << "\n  replay it with: RC_PARAMS=\"" << replay_text << "\"";
      CaseOutcome outcome{CaseStatus::failed, message.str()};
      outcome.details = failing;
      outcome.details.reproduce = "RC_PARAMS=\"" + replay_text + "\"";
      return outcome;
    }
    if (result.match(gave_up)) {
      message << id << " gave up after " << gave_up.numSuccess
              << " passing trials: " << dropped << " trials dropped, e.g. " << dropped_reason;
      return {CaseStatus::failed, message.str()};
    }
    rc::detail::Error error("");
    result.match(error);
    return {CaseStatus::failed, id + ": rapidcheck error: " + error.description};
  }
  return {CaseStatus::passed, passed.str()};
}

CaseOutcome run_property_trials(const TaskSpec& task, PropertyKind kind,
                                const PropertyOptions& options, const PropertyTrial& trial) {
  if (kind == PropertyKind::shapes && task.domains().empty()) {
    return {CaseStatus::skipped,
            "task '" + task.id() + "' declares no dim domains, so shapes cannot vary"};
  }
  const std::size_t config_count = task.configs().size();
  const auto body = [&](const PropertyPhase& phase, CaseDetails& details,
                        const TrialGate& may_run) {
    // Tasks with several configs: each trial runs under one of them, drawn like the dims.
    const TaskSpec& trial_task =
        config_count == 1
            ? task.configured(0)
            : task.configured(*rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(0, config_count))
                                    .as("config"));
    CaseInputs inputs;
    inputs.seed = *rc::gen::inRange<std::uint64_t>(0, 1u << 31).as("input seed");
    if (kind == PropertyKind::shapes) {
      inputs.distribution = "property shapes";
      const std::map<std::string, DimRange> ranges =
          property_dim_ranges(trial_task, options.device, options.supported, phase.tier);
      inputs.dims = trial_task.test_dims(options.device);
      if (phase.tier == DimTier::whole_domain) {
        // One dim reaches for the domain's far edge; the others stay at the test size and give
        // way to the budget first.
        std::vector<std::string> names;
        for (const auto& [name, range] : ranges) names.push_back(name);
        // At rapidcheck's nominal size inRange is uniform over the whole range in every trial
        // (at the size it passes, early trials would always pick the first dim).
        const std::string& reaching =
            names[*rc::gen::resize(rc::kNominalSize, rc::gen::inRange<std::size_t>(0, names.size()))
                       .as("dim reaching the domain's edge")];
        inputs.dims[reaching] = *dim_generator(ranges.at(reaching), phase.tier).as("dim " + reaching);
      } else {
        for (const auto& [name, range] : ranges) {
          inputs.dims[name] = *dim_generator(range, phase.tier).as("dim " + name);
        }
      }
      inputs.dims = fit_to_input_budget(trial_task, inputs.dims, phase.input_budget, ranges);
    } else {
      inputs.distribution = "property scale";
      inputs.dims = trial_task.test_dims(options.device);
      const int milli_decades = *rc::gen::inRange(-1000 * defaults::kPropertyScaleDecades,
                                                  1000 * defaults::kPropertyScaleDecades + 1)
                                     .as("log10(|scale|) x 1000");
      const bool negative = *rc::gen::arbitrary<bool>().as("negative scale");
      inputs.scale = (negative ? -1.0 : 1.0) * std::pow(10.0, milli_decades / 1000.0);
    }
    details = case_details(trial_task, inputs);
    if (!may_run(details)) return CaseOutcome{CaseStatus::passed, "not run: shrinking stopped"};
    // A judge waiting to time on this GPU goes first: it waits for one trial, not the whole case.
    yield_device_lease_to_timing(options.device);
    return trial(trial_task, inputs);
  };
  std::vector<PropertyPhase> phases = property_phases(kind, options.device);
  for (PropertyPhase& phase : phases) {
    if (phase.tier == DimTier::whole_domain) phase.trials *= static_cast<int>(task.domains().size());
  }
  return run_property_phases(options, phases, body);
}

CaseOutcome run_property(const KernelSpec& kernel, const TaskSpec& task, PropertyKind kind) {
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  PropertyOptions options;
  options.id = kernel.full_id() + "/property_" + to_string(kind);
  options.device = kernel.device();
  options.supported = kernel.supported_dims();
  CaseOutcome outcome =
      run_property_trials(task, kind, options,
                          [&kernel](const TaskSpec& trial_task, const CaseInputs& inputs) {
                            return run_correctness_case(kernel, trial_task, inputs);
                          });
  if (kind == PropertyKind::shapes && !options.supported.empty()) {
    // A verdict inside a declared domain says nothing outside it: the message says so.
    outcome.message += " [dims drawn inside what the kernel declares it supports: " +
                       describe_restrictions(options.supported) + "]";
  }
  return outcome;
}

}  // namespace rkt
