// The eager baseline of a backward task, timed fairly: the backward pass alone. A backward
// kernel gets the forward inputs and the output cotangents and returns the gradients; PyTorch's
// eager training step has built the forward graph already when it runs the backward, so the
// baseline builds each input set's graph once, before any timing, and each timed call runs only
// autograd's backward through it.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "rkt/task.h"

namespace rkt {

using GradientRunner = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

/// For the backward task `task`: a runner for the input sets `input_sets` (each the task's
/// inputs: forward inputs, then one cotangent per forward output) that runs the backward pass
/// of the set whose inputs it is given and returns its gradients, in the task's output order.
/// The forward graphs are built here (grad mode on) and retained; the runner refuses inputs of
/// another set.
GradientRunner backward_only_runner(const TaskSpec& task,
                                    const std::vector<std::vector<at::Tensor>>& input_sets);

/// What a baseline of `task` times, for reports: "backward pass alone ..." for a backward task's
/// eager baselines, the twin's vector-Jacobian product for its compiled one, else the task's
/// computation.
std::string baseline_measures(const TaskSpec& task, const std::string& baseline);

}  // namespace rkt
