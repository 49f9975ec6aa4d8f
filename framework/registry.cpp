// The global registries of tasks and kernels, filled by static registrars before main().
#include <algorithm>
#include <deque>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "framework/registry_validation.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// Function-local statics: registrars in other translation units may run before this file's
// globals are constructed. Deques keep references stable as entries are added.
std::deque<KernelSpec>& kernel_storage() {
  static std::deque<KernelSpec> storage;
  return storage;
}

std::deque<TaskSpec>& task_storage() {
  static std::deque<TaskSpec> storage;
  return storage;
}

// Levenshtein distance, for "did you mean" hints.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

KernelSpec::KernelSpec(std::string task_id, std::string kernel_id, KernelAdapter adapter,
                       Device device, std::string file, int line)
    : task_id_(std::move(task_id)),
      kernel_id_(std::move(kernel_id)),
      function_(std::move(adapter.function)),
      device_(device),
      file_(std::move(file)),
      line_(line),
      returns_tensors_(adapter.returns_tensors) {}

KernelSpec& KernelSpec::device(Device device) {
  device_ = device;
  return *this;
}

KernelSpec& KernelSpec::precision(Precision precision) {
  precision_ = precision;
  return *this;
}

KernelSpec& KernelSpec::describe(std::string description) {
  description_ = std::move(description);
  return *this;
}

KernelSpec& KernelSpec::waive_gate(IntegrityGate gate, std::string reason) {
  waived_gates_[gate] = std::move(reason);
  return *this;
}

KernelSpec& KernelSpec::allow_operators(std::vector<std::string> operator_names) {
  allowed_operators_.insert(allowed_operators_.end(), operator_names.begin(),
                            operator_names.end());
  return *this;
}

const char* to_string(IntegrityGate gate) {
  switch (gate) {
    case IntegrityGate::recycled_output: return "recycled_output";
    case IntegrityGate::input_mutation: return "input_mutation";
    case IntegrityGate::replay: return "replay";
    case IntegrityGate::borrowed_computation: return "borrowed_computation";
    case IntegrityGate::escaped_work: return "escaped_work";
    case IntegrityGate::determinism: return "determinism";
  }
  return "?";
}

const std::vector<IntegrityGate>& all_integrity_gates() {
  static const std::vector<IntegrityGate> gates = {
      IntegrityGate::recycled_output, IntegrityGate::input_mutation,
      IntegrityGate::replay,          IntegrityGate::borrowed_computation,
      IntegrityGate::escaped_work,    IntegrityGate::determinism};
  return gates;
}

KernelSpec& register_kernel(const std::string& task_id, const std::string& kernel_id,
                            KernelAdapter adapter, Device default_device, const char* file,
                            int line) {
  return kernel_storage().emplace_back(task_id, kernel_id, std::move(adapter), default_device,
                                       file, line);
}

std::vector<KernelSpec*> registered_kernels() {
  std::vector<KernelSpec*> kernels;
  for (KernelSpec& kernel : kernel_storage()) kernels.push_back(&kernel);
  return kernels;
}

TaskSpec& register_task(const std::string& id, const char* file, int line) {
  return task_storage().emplace_back(id, file, line);
}

const TaskSpec* find_task(const std::string& id) {
  for (const TaskSpec& task : task_storage()) {
    if (task.id() == id) return &task;
  }
  return nullptr;
}

std::vector<const TaskSpec*> registered_tasks() {
  std::vector<const TaskSpec*> tasks;
  for (const TaskSpec& task : task_storage()) tasks.push_back(&task);
  std::sort(tasks.begin(), tasks.end(),
            [](const TaskSpec* a, const TaskSpec* b) { return a->id() < b->id(); });
  return tasks;
}

std::string closest_task_id(const std::string& unknown_id) {
  std::string best;
  std::size_t best_distance = unknown_id.size();
  for (const TaskSpec* task : registered_tasks()) {
    const std::size_t distance = edit_distance(unknown_id, task->id());
    if (distance < best_distance) {
      best_distance = distance;
      best = task->id();
    }
  }
  return best;
}

std::vector<std::string> registry_errors() {
  std::vector<std::string> errors;
  std::map<std::string, const TaskSpec*> tasks_by_id;
  for (const TaskSpec& task : task_storage()) {
    if (!tasks_by_id.emplace(task.id(), &task).second) {
      errors.push_back("task '" + task.id() + "' is declared twice: at " +
                       tasks_by_id[task.id()]->file() + ":" +
                       std::to_string(tasks_by_id[task.id()]->line()) + " and at " + task.file() +
                       ":" + std::to_string(task.line()));
    }
    try {
      task.validate();
    } catch (const std::exception& error) {
      errors.push_back("task '" + task.id() + "' (" + task.file() + ":" +
                       std::to_string(task.line()) + ") is malformed: " + error.what());
    }
  }
  std::map<std::string, const KernelSpec*> kernels_by_id;
  for (const KernelSpec& kernel : kernel_storage()) {
    const std::string where = kernel.file() + ":" + std::to_string(kernel.line());
    if (tasks_by_id.count(kernel.task_id()) == 0) {
      std::ostringstream message;
      message << "kernel '" << kernel.kernel_id() << "' (" << where
              << ") is registered for unknown task '" << kernel.task_id() << "'";
      const std::string hint = closest_task_id(kernel.task_id());
      if (!hint.empty()) message << "; did you mean '" << hint << "'?";
      errors.push_back(message.str());
    }
    if (!kernels_by_id.emplace(kernel.full_id(), &kernel).second) {
      errors.push_back("kernel '" + kernel.full_id() + "' is registered twice: at " +
                       kernels_by_id[kernel.full_id()]->file() + ":" +
                       std::to_string(kernels_by_id[kernel.full_id()]->line()) + " and at " +
                       where);
    }
    if (!kernel.function()) errors.push_back("kernel '" + kernel.full_id() + "' has no function");
    for (const auto& [gate, reason] : kernel.waived_gates()) {
      if (reason.empty()) {
        errors.push_back("kernel '" + kernel.full_id() + "' (" + where + ") waives gate '" +
                         to_string(gate) + "' without a reason");
      }
    }
  }
  return errors;
}

}  // namespace rkt
