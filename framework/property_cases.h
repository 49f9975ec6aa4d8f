// rapidcheck properties over a kernel: random shapes from the task's domains, random scales.
#pragma once

#include <string>
#include <vector>

#include "framework/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

enum class PropertyKind {
  shapes,  ///< Dims drawn from the task's domains (1, odd, off-multiples, up to 2x), scale 1.
  scale,   ///< The test dims; every floating input scaled by +-10^u, u uniform in [-3, 3].
};

const std::vector<PropertyKind>& all_property_kinds();
/// "shapes" or "scale": used in test names.
const char* to_string(PropertyKind kind);

/// Runs one property with rapidcheck. On failure the message holds the shrunk case (dims, scale,
/// seed), the kernel's error, and the RC_PARAMS string that replays exactly that case.
CaseOutcome run_property(const KernelSpec& kernel, const TaskSpec& task, PropertyKind kind);

/// The dims a property trial uses: each dim with a domain drawn by `draw(min, max)`, bounded by
/// kPropertyMaxDimFactor x the test size and by the device's input budget (largest dims halved
/// until the inputs fit).
Dims bounded_property_dims(const TaskSpec& task, Device device,
                           const std::function<std::int64_t(const std::string&, std::int64_t,
                                                            std::int64_t)>& draw);

}  // namespace rkt
