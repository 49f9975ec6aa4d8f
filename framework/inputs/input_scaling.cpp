#include "framework/inputs/input_scaling.h"

#include <ATen/ATen.h>

namespace rkt {

const std::vector<InputScaling>& standard_scalings() {
  static const std::vector<InputScaling> scalings = {
      {"x1", 1.0}, {"x3", 3.0}, {"x0_01", 0.01}, {"negated", -1.0}};
  return scalings;
}

void scale_floating_inputs(const TaskSpec& task, std::vector<at::Tensor>& inputs, double scale) {
  if (scale == 1.0) return;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (task.inputs()[i].is_scaled() && inputs[i].is_floating_point()) inputs[i].mul_(scale);
  }
}

}  // namespace rkt
