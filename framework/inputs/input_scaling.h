// The four input distributions every kernel is tested under (KernelBench-Verified's D1-D4).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// A transformation of a task's drawn inputs: every floating input is multiplied by `scale`;
/// index inputs are never touched.
struct InputScaling {
  std::string name;  ///< Used in test names: "x1", "x3", "x0_01", "negated".
  double scale = 1;
};

/// Original (x1), x3, x0.01 and negated (x-1).
const std::vector<InputScaling>& standard_scalings();

/// Multiplies every floating input of `task` by `scale`, in place.
void scale_floating_inputs(const TaskSpec& task, std::vector<at::Tensor>& inputs, double scale);

}  // namespace rkt
