// The case `user_<name>` of a kernel: a ROBUST_PROPERTY (include/rkt/user_property.h) run with
// rapidcheck through the same machinery as the built-in properties (framework/cases/property_cases.h).
#pragma once

#include "framework/cases/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"
#include "rkt/user_property.h"

namespace rkt {

/// Runs `property` on `kernel` over the task's primary config: per trial, dims from the property's
/// generator on top of the test dims (trials outside the kernel's declared dims are discarded),
/// inputs from its generator or the task's laws, the kernel (in its worker when isolated), then
/// the property's check, or the float64 reference comparison when it has none. The judge runs
/// the generator and the check; kernel code never sees them.
CaseOutcome run_user_property(const KernelSpec& kernel, const TaskSpec& task,
                              const UserProperty& property);

}  // namespace rkt
