// One correctness case: draw inputs, run the kernel, compare with the float64 reference.
#pragma once

#include <cstdint>
#include <string>

#include "framework/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// What a correctness case runs on: dims, the scale applied to floating inputs, and the seed.
struct CaseInputs {
  Dims dims;
  double scale = 1;
  std::uint64_t seed = 0;
  std::string distribution;  ///< A name for messages, e.g. "x3" or "property scale".
};

/// "distribution x3 (scale 3), dims B=37 N=300, seed 42": enough to reproduce the case.
std::string describe_case(const CaseInputs& inputs);

/// Runs `kernel` once on `inputs` and judges every output. Never throws: a kernel exception or
/// a malformed task becomes a failed outcome naming it.
CaseOutcome run_correctness_case(const KernelSpec& kernel, const TaskSpec& task,
                                 const CaseInputs& inputs);

}  // namespace rkt
