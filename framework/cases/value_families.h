// The value-family cases (include/rkt/value_families.h): transforms of a task's data inputs, and
// the correctness case that runs a kernel on them.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "framework/cases/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"
#include "rkt/value_families.h"

namespace rkt {

const std::vector<ValueFamily>& all_value_families();

/// Applies `family` in place to the data inputs of `task` (floating, not weights or buffers),
/// drawing what it needs from `seed`:
///   offset: x + kValueOffsetStds * std(x)
///   mixed_magnitudes: x * 10^u, u uniform in [-kValueMixedDecades, kValueMixedDecades]
///   ties: x rounded to multiples of kValueTieGridStds * std(x)
///   signed_zeros_denormals: a kValueSpecialShare of elements set to +0, -0, +-1e-40, +-1e-45
void apply_value_family(const TaskSpec& task, std::vector<at::Tensor>& inputs, ValueFamily family,
                        std::uint64_t seed);

/// The case `values_<family>` of `kernel`: its task's primary config at its small size, scale 1,
/// inputs drawn from the case seed and transformed by `family`, judged like a correctness case.
CaseOutcome run_value_family_case(const KernelSpec& kernel, const TaskSpec& task,
                                  ValueFamily family);

}  // namespace rkt
