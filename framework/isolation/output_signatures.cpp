#include "framework/isolation/output_signatures.h"

#include <ATen/ATen.h>

#include <atomic>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "framework/runtime/torch_bridge.h"

namespace rkt {
namespace {

// Enough for every shape a judge meets in one kernel's cases (a property phase draws up to a few
// dozen); the oldest half goes when it is full.
constexpr std::size_t kRememberedSignatures = 512;

std::atomic<std::uint64_t> reference_runs{0};

std::string signature_key(const TaskSpec& task, const std::vector<at::Tensor>& inputs, Device device) {
  std::ostringstream key;
  key << task.id() << '/' << task.config_name() << '/' << to_string(device);
  for (const at::Tensor& input : inputs) {
    key << '|' << c10::toString(input.scalar_type());
    for (std::int64_t size : input.sizes()) key << ',' << size;
  }
  return key.str();
}

struct RememberedSignatures {
  std::mutex mutex;
  std::map<std::string, std::pair<std::uint64_t, std::vector<OutputSignature>>> by_key;  // age, signatures
  std::uint64_t next_age = 0;
};

RememberedSignatures& remembered() {
  static RememberedSignatures* instance = new RememberedSignatures;
  return *instance;
}

// A backward task's outputs are the gradients of its floating forward inputs, each shaped and
// typed as its input (framework/registry/backward_task.cpp).
std::vector<OutputSignature> gradient_signatures(const TaskSpec& task, const std::vector<at::Tensor>& inputs) {
  std::vector<OutputSignature> signatures;
  for (std::size_t i = 0; i < task.num_forward_inputs() && i < inputs.size(); ++i) {
    if (inputs[i].is_floating_point()) signatures.push_back({inputs[i].sizes().vec(), inputs[i].scalar_type()});
  }
  return signatures;
}

std::vector<OutputSignature> reference_signatures(const TaskSpec& task, const std::vector<at::Tensor>& inputs,
                                                  Device device) {
  ++reference_runs;
  std::vector<at::Tensor> outputs;
  try {
    outputs = task.reference()(meta_copies(inputs));
  } catch (const c10::Error&) {
    std::vector<at::Tensor> zero_inputs;
    for (const at::Tensor& input : inputs) {
      zero_inputs.push_back(at::zeros(input.sizes(), input.options().device(to_torch_device(device))));
    }
    outputs = task.reference()(zero_inputs);
  }
  std::vector<OutputSignature> signatures;
  for (const at::Tensor& output : outputs) signatures.push_back({output.sizes().vec(), output.scalar_type()});
  return signatures;
}

}  // namespace

std::vector<at::Tensor> meta_copies(const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> meta;
  for (const at::Tensor& tensor : tensors) {
    meta.push_back(at::empty(tensor.sizes(), tensor.options().device(at::kMeta)));
  }
  return meta;
}

std::vector<OutputSignature> infer_output_signatures(const TaskSpec& task,
                                                     const std::vector<at::Tensor>& inputs,
                                                     Device device) {
  const std::string key = signature_key(task, inputs, device);
  RememberedSignatures& memory = remembered();
  std::vector<OutputSignature> signatures;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(memory.mutex);
    const auto entry = memory.by_key.find(key);
    if (entry != memory.by_key.end()) {
      signatures = entry->second.second;
      found = true;
    }
  }
  if (!found) {
    signatures = task.forward_task_id().empty() ? reference_signatures(task, inputs, device)
                                                : gradient_signatures(task, inputs);
  }
  if (signatures.size() != task.output_names().size()) {
    throw std::invalid_argument("task '" + task.id() + "': the reference returns " +
                                std::to_string(signatures.size()) + " tensors but the task names " +
                                std::to_string(task.output_names().size()) + " outputs");
  }
  if (!found) {
    std::lock_guard<std::mutex> lock(memory.mutex);
    if (memory.by_key.size() >= kRememberedSignatures) {
      const std::uint64_t oldest_kept = memory.next_age - kRememberedSignatures / 2;
      for (auto it = memory.by_key.begin(); it != memory.by_key.end();) {
        it = it->second.first < oldest_kept ? memory.by_key.erase(it) : std::next(it);
      }
    }
    memory.by_key[key] = {memory.next_age++, signatures};
  }
  return signatures;
}

std::uint64_t output_signature_reference_runs() { return reference_runs.load(); }

}  // namespace rkt
