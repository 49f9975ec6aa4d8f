// The global registry of tasks, filled by static registrars before main(), and the validation
// of tasks and kernels together (the kernel registry is framework/kernel_api/kernel_registry.cpp).
#include <algorithm>
#include <deque>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "framework/dims/kernel_domain.h"
#include "framework/registry/registry_validation.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// Function-local statics: registrars in other translation units may run before this file's
// globals are constructed. Deques keep references stable as entries are added.
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

std::vector<std::string> closest_kernel_ids(const std::string& fragment, std::size_t count) {
  std::vector<std::pair<std::size_t, std::string>> ranked;
  // A hint farther than a third of the fragment (at least 2 edits) would be a guess.
  const std::size_t limit = std::max<std::size_t>(2, fragment.size() / 3);
  for (const KernelSpec* kernel : registered_kernels()) {
    const std::size_t distance =
        std::min({edit_distance(fragment, kernel->full_id()),
                  edit_distance(fragment, kernel->task_id()),
                  edit_distance(fragment, kernel->kernel_id())});
    if (distance <= limit) ranked.emplace_back(distance, kernel->full_id());
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) ids.push_back(ranked[i].second);
  return ids;
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
  for (const KernelSpec* kernel_pointer : registered_kernels()) {
    const KernelSpec& kernel = *kernel_pointer;
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
    if (const TaskSpec* task = find_task(kernel.task_id())) {
      for (std::string& error : supported_dims_errors(kernel, *task)) errors.push_back(std::move(error));
    }
    if (!kernel.function()) errors.push_back("kernel '" + kernel.full_id() + "' has no function");
    for (const auto& [gate, reason] : kernel.waived_gates()) {
      if (reason.empty()) {
        errors.push_back("kernel '" + kernel.full_id() + "' (" + where + ") waives gate '" +
                         to_string(gate) + "' without a reason");
      }
    }
  }
  for (std::string& error : user_property_errors()) errors.push_back(std::move(error));
  return errors;
}

}  // namespace rkt
