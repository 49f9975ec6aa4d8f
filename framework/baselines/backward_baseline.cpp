#include "framework/baselines/backward_baseline.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "framework/comparison/precision_emulation.h"

namespace rkt {
namespace {

// One input set's forward pass, recorded for autograd.
struct RecordedForward {
  std::vector<at::Tensor> leaves;     ///< The forward inputs (floating ones require grad).
  std::vector<at::Tensor> differentiable;  ///< The leaves that require grad, in input order.
  at::Tensor root;                    ///< What backward starts from.
  at::Tensor root_gradient;           ///< Its cotangent (undefined for a scalar pairing).
};

RecordedForward record_forward(const TaskSpec& task, const std::vector<at::Tensor>& inputs) {
  const std::size_t num_forward = task.num_forward_inputs();
  c10::AutoGradMode grad_enabled(true);
  RecordedForward recorded;
  for (std::size_t i = 0; i < num_forward; ++i) {
    at::Tensor leaf = inputs.at(i).detach();
    if (leaf.is_floating_point()) {
      leaf.requires_grad_(true);
      recorded.differentiable.push_back(leaf);
    }
    recorded.leaves.push_back(leaf);
  }
  const std::vector<at::Tensor> outputs = task.forward_reference()(recorded.leaves);
  if (outputs.size() + num_forward != inputs.size()) {
    throw std::invalid_argument("the forward reference of " + task.id() + " returned " +
                                std::to_string(outputs.size()) + " outputs for " +
                                std::to_string(inputs.size() - num_forward) + " cotangents");
  }
  if (outputs.size() == 1) {
    recorded.root = outputs[0];
    recorded.root_gradient = inputs[num_forward];
  } else {
    // Several outputs: one scalar whose gradient is the joint vector-Jacobian product, built here
    // so that only its (cheap) backward is timed.
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const at::Tensor term = (outputs[k] * inputs[num_forward + k]).sum();
      recorded.root = recorded.root.defined() ? recorded.root + term : term;
    }
  }
  return recorded;
}

}  // namespace

GradientRunner backward_only_runner(const TaskSpec& task,
                                    const std::vector<std::vector<at::Tensor>>& input_sets) {
  if (task.forward_task_id().empty()) {
    throw std::logic_error("backward_only_runner: " + task.id() + " is not a backward task");
  }
  auto recorded = std::make_shared<std::map<const void*, RecordedForward>>();
  for (const std::vector<at::Tensor>& inputs : input_sets) {
    recorded->emplace(inputs.at(0).data_ptr(), record_forward(task, inputs));
  }
  return [recorded, id = task.id()](const std::vector<at::Tensor>& inputs) {
    const auto found = recorded->find(inputs.at(0).data_ptr());
    if (found == recorded->end()) {
      throw std::logic_error("the backward baseline of " + id + " has no recorded forward pass "
                             "for these inputs");
    }
    RecordedForward& forward = found->second;
    // Gradients are assigned, not accumulated into the previous call's: no extra addition.
    for (at::Tensor& leaf : forward.differentiable) leaf.mutable_grad() = at::Tensor();
    forward.root.backward(forward.root_gradient, /*retain_graph=*/true, /*create_graph=*/false,
                          at::TensorList(forward.differentiable));
    std::vector<at::Tensor> gradients;
    for (const at::Tensor& leaf : forward.differentiable) {
      const at::Tensor gradient = leaf.grad();
      gradients.push_back(gradient.defined() ? gradient.detach() : at::zeros_like(leaf.detach()));
    }
    return gradients;
  };
}

std::string baseline_measures(const TaskSpec& task, const std::string& baseline) {
  const bool backward = !task.forward_task_id().empty();
  if (baseline == "compiled") {
    return backward ? "AOTInductor package of the twin's vector-Jacobian product: forward inputs "
                      "and cotangents to gradients, the forward's values recomputed as a kernel "
                      "must"
                    : "AOTInductor package of the task's Python twin";
  }
  std::string measures = backward
                             ? "the backward pass alone: autograd through a forward graph built before timing"
                             : "the task's reference in LibTorch eager";
  // On a task stored in bf16 or fp16 the eager baselines compute in that dtype: "fp32" and
  // "tf32" in their names are the TF32 switch, not the arithmetic, and a reader must not take
  // eager_fp32 for an fp32 computation.
  const Precision stored = task_storage_class(task);
  if (baseline == "compiled" || stored == Precision::fp32) return measures;
  return measures + ", in " + (stored == Precision::bf16 ? "bfloat16" : "float16") +
         " (the task's dtype; '" + baseline + "' names the TF32 setting, not the arithmetic)";
}

}  // namespace rkt
