// The relation cases (include/rkt/metamorphic_relations.h): run a kernel on x and on a
// transformed x, and check the second output against what the relation predicts.
#pragma once

#include "framework/cases/case_outcome.h"
#include "rkt/metamorphic_relations.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// The case `relation_<name>` of `kernel`: the task's primary config at the test size, inputs
/// drawn from the case seed. The bound: twice the class's floor, raised to what an honest kernel
/// of the class misses the relation by (derived_tolerance on the float32 emulation of both runs).
CaseOutcome run_relation_case(const KernelSpec& kernel, const TaskSpec& task,
                              const MetamorphicRelation& relation);

}  // namespace rkt
