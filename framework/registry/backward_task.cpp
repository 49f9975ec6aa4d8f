// Backward tasks: a forward task's gradients, with LibTorch autograd as the reference.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include "framework/dims/dim_resolution.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// The vector-Jacobian product of `forward` at the first `num_forward` inputs, with the cotangents
// (one per forward output) in the inputs after them. Returns one gradient per floating forward
// input, in order; an input the outputs do not depend on gets zeros.
std::vector<at::Tensor> autograd_gradients(const ReferenceFunction& forward,
                                           std::size_t num_forward,
                                           const std::vector<at::Tensor>& inputs) {
  c10::AutoGradMode grad_enabled(true);
  std::vector<at::Tensor> leaves;
  for (std::size_t i = 0; i < num_forward; ++i) {
    at::Tensor leaf = inputs[i].detach();
    if (leaf.is_floating_point()) leaf.requires_grad_(true);
    leaves.push_back(leaf);
  }
  const std::vector<at::Tensor> outputs = forward(leaves);
  if (outputs.size() + num_forward != inputs.size()) {
    throw std::invalid_argument("the forward reference returned " +
                                std::to_string(outputs.size()) + " outputs; the backward task has " +
                                std::to_string(inputs.size() - num_forward) + " output gradients");
  }
  // sum_k <output_k, cotangent_k> has exactly the requested vector-Jacobian product as gradient.
  at::Tensor pairing;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const at::Tensor term = (outputs[k] * inputs[num_forward + k]).sum();
    pairing = pairing.defined() ? pairing + term : term;
  }
  std::vector<at::Tensor> differentiable;
  for (const at::Tensor& leaf : leaves) {
    if (leaf.requires_grad()) differentiable.push_back(leaf);
  }
  pairing.backward({}, /*retain_graph=*/false, /*create_graph=*/false, differentiable);
  std::vector<at::Tensor> gradients;
  for (const at::Tensor& leaf : differentiable) {
    const at::Tensor gradient = leaf.grad();
    gradients.push_back(gradient.defined() ? gradient.detach() : at::zeros_like(leaf.detach()));
  }
  return gradients;
}

double element_count(const InputSpec& input, const Dims& dims) {
  double count = 1;
  for (const std::int64_t size : resolve_dims(input.dims, dims)) count *= static_cast<double>(size);
  return count;
}

}  // namespace

TaskSpec& register_backward_task(const std::string& id, const std::string& forward_id,
                                 const char* file, int line) {
  TaskSpec& task = register_task(id, file, line);
  const TaskSpec* forward = find_task(forward_id);
  if (forward == nullptr) {
    task.definition_error_ = "its forward task '" + forward_id +
                             "' is not registered before it (declare the backward task after its "
                             "forward task, in the same file)";
    return task;
  }
  task = backward_task_of(*forward, id, file, line);
  return task;
}

TaskSpec backward_task_of(const TaskSpec& forward_task, const std::string& id,
                          const std::string& file, int line) {
  const TaskSpec* forward = &forward_task;
  const std::string& forward_id = forward->id();
  TaskSpec task = *forward;
  if (!forward->forward_task_id().empty()) {
    task.definition_error_ = "its forward task '" + forward_id + "' is itself a backward task";
  }
  task.id_ = id;
  task.file_ = file;
  task.line_ = line;
  task.configured_.clear();
  task.forward_task_id_ = forward_id;
  task.forward_reference_ = forward->reference();
  task.num_forward_inputs_ = forward->inputs().size();
  task.description_ = "gradients of " + forward_id + " (" + forward->description() + ")";

  std::vector<std::string> gradient_names;
  std::vector<InputSpec> differentiable;
  for (const InputSpec& input : forward->inputs()) {
    if (input.is_index() || input.dtype == DType::int64 || input.dtype == DType::int32) continue;
    gradient_names.push_back("grad_" + input.name);
    differentiable.push_back(input);
  }
  for (std::size_t k = 0; k < forward->output_names().size(); ++k) {
    InputSpec cotangent;
    cotangent.name = "grad_" + forward->output_names()[k];
    cotangent.values = values::normal();
    cotangent.like_output = static_cast<int>(k);
    // A low-precision task's outputs are stored in its format, and so are their gradients
    // (PyTorch's autograd hands a bf16 output a bf16 cotangent).
    if (!differentiable.empty() && (differentiable.front().dtype == DType::bfloat16 ||
                                    differentiable.front().dtype == DType::float16)) {
      cotangent.dtype = differentiable.front().dtype;
    }
    task.inputs_.push_back(cotangent);
  }
  task.output_names_ = gradient_names;
  task.reference_ = [forward_reference = forward->reference(),
                     num_forward = task.num_forward_inputs_](const std::vector<at::Tensor>& in) {
    return autograd_gradients(forward_reference, num_forward, in);
  };
  // Minimal traffic: read every forward input, write every gradient (the output cotangents are
  // at least as large again, but their shapes are only known from the reference, so the floor
  // leaves them out and stays a lower bound).
  task.bytes_ = [all_inputs = forward->inputs(), differentiable](const Dims& dims) {
    double bytes = 0;
    for (const InputSpec& input : all_inputs) {
      bytes += element_count(input, dims) * static_cast<double>(element_size(input.dtype));
    }
    for (const InputSpec& input : differentiable) {
      bytes += element_count(input, dims) * static_cast<double>(element_size(input.dtype));
    }
    return bytes;
  };
  // A backward pass costs about twice its forward pass (one product per input and per weight).
  task.flops_ = [forward_flops = forward->flops_](const Dims& dims) {
    return forward_flops ? 2 * forward_flops(dims) : 0.0;
  };
  return task;
}

}  // namespace rkt
