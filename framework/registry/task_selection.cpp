#include "framework/registry/task_selection.h"

#include <sstream>

namespace rkt {

std::vector<const TaskSpec*> tasks_matching(const std::string& fragments) {
  std::vector<std::string> wanted;
  std::istringstream list(fragments);
  for (std::string fragment; std::getline(list, fragment, ',');) wanted.push_back(fragment);
  if (wanted.empty()) wanted.push_back("");
  std::vector<const TaskSpec*> tasks;
  for (const TaskSpec* task : registered_tasks()) {
    for (const std::string& fragment : wanted) {
      if (task->id().find(fragment) != std::string::npos) {
        tasks.push_back(task);
        break;
      }
    }
  }
  return tasks;
}

}  // namespace rkt
