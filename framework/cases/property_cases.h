// rapidcheck properties over a kernel: edge-seeking shapes from the task's domains, random scales.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "framework/cases/case_outcome.h"
#include "framework/cases/correctness_case.h"
#include "framework/dims/edge_dims.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

enum class PropertyKind {
  shapes,  ///< Edge-seeking dims drawn from the task's domains (framework/dims/edge_dims.h), scale 1.
  scale,   ///< The test dims; every floating input scaled by +-10^u, u uniform in [-3, 3].
};

const std::vector<PropertyKind>& all_property_kinds();
/// "shapes" or "scale": used in test names.
const char* to_string(PropertyKind kind);

/// One rapidcheck run within a property: its trials, the input budget each trial's dims are fitted
/// to, how dims are drawn, and a time limit after which its remaining trials are not run.
struct PropertyPhase {
  std::string name;  ///< Appended to the property's id ("" for the first phase).
  int trials = 0;
  std::int64_t input_budget = 0;  // [bytes]
  DimTier tier = DimTier::edges;
  double time_budget_seconds = 0;  // [s]; 0: no limit
};

/// The phases of `kind` on `device`. Shapes on the CPU: kPropertyTrialsCpu edge trials.
/// Shapes on CUDA: kPropertySmallTrialsCuda cheap edge trials (small input budget, time-bounded),
/// then kPropertyFullSizeTrialsCuda trials near and above the benchmark size. Shapes on both end
/// with kPropertyWholeDomainTrialsPerDim trials per domain dim across the whole declared domain
/// ("whole_domain"; run_property_trials multiplies by the task's dim count).
/// Scale: one phase.
std::vector<PropertyPhase> property_phases(PropertyKind kind, Device device);

/// The range of each domain dim of `task` in property trials on `device`: the task's domain, capped
/// at kPropertyMaxDimFactor x the size the kernel is tested at (uncapped for `whole_domain`
/// trials), narrowed to the dims the kernel declares it supports (`supported`: min, max, and a
/// step for "% k == 0").
std::map<std::string, DimRange> property_dim_ranges(const TaskSpec& task, Device device,
                                                    const std::vector<DimRestriction>& supported = {},
                                                    DimTier tier = DimTier::edges);

/// `dims` with dims halved until the task's inputs fit `budget`: the largest dim that is not
/// "large" (above large_dim_floor) first, so that a large draw survives when the others can give
/// way; large dims only when nothing else can. A halved dim is rounded down to its range's step.
Dims fit_to_input_budget(const TaskSpec& task, Dims dims, std::int64_t budget,
                         const std::map<std::string, DimRange>& ranges);

/// Total bytes of the task's inputs at `dims`.
std::int64_t input_bytes(const TaskSpec& task, const Dims& dims);

/// Runs one trial: the task under the trial's config, and its inputs.
using PropertyTrial = std::function<CaseOutcome(const TaskSpec& trial_task, const CaseInputs&)>;

struct PropertyOptions {
  std::string id;  ///< rapidcheck's test id, e.g. "softmax/cpu/property_shapes".
  Device device = Device::cpu;
  /// The rapidcheck seed; default: RC_PARAMS's seed, else the run's seed.
  std::optional<std::uint64_t> seed;
  /// Trials per phase instead of the defaults (measurements); RC_PARAMS's max_success still wins.
  std::optional<int> trials;
  /// The dims the kernel declares it supports: shape trials draw only inside them.
  std::vector<DimRestriction> supported;
};

/// Asked with a drawn trial's inputs, before it runs: false when it is not to run (shrinking was
/// stopped, defaults::kShrinkingWorkerLossLimit); the body then returns a pass without running it.
using TrialGate = std::function<bool(const CaseDetails& trial)>;

/// One trial of a property: draws what it needs from rapidcheck (`*generator`), asks `may_run`
/// (bodies whose trials never lose a worker may skip it), runs and returns the outcome (dropped:
/// discarded and counted), and fills `details` with the trial's inputs so that a failure reports
/// the shrunk case.
using PropertyBody = std::function<CaseOutcome(const PropertyPhase& phase, CaseDetails& details,
                                               const TrialGate& may_run)>;

/// Runs `body` with rapidcheck, phase by phase: the seed (RC_PARAMS's, else the run's), replay of
/// RC_PARAMS="reproduce=...", the phases' time budgets, shrinking, and the messages. Shared by the
/// built-in properties and the ones users declare (framework/cases/user_property_cases.h).
CaseOutcome run_property_phases(const PropertyOptions& options,
                                const std::vector<PropertyPhase>& phases, const PropertyBody& body);

/// Runs property `kind` of `task` through `trial` with rapidcheck, phase by phase. On failure the
/// message holds the shrunk case (dims, scale, seed), the trial's message and the RC_PARAMS string
/// that replays exactly that case; the outcome's details hold the failing case's inputs.
CaseOutcome run_property_trials(const TaskSpec& task, PropertyKind kind,
                                const PropertyOptions& options, const PropertyTrial& trial);

/// Runs one property of `kernel` (each trial a correctness case).
CaseOutcome run_property(const KernelSpec& kernel, const TaskSpec& task, PropertyKind kind);

}  // namespace rkt
