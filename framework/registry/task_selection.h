#pragma once
// Which registered tasks a command's `--task` names: comma-separated fragments, a task selected
// when its id contains any of them ("softmax,relu"); an empty selection names every task.

#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// The registered tasks, sorted by id, whose ids contain one of the comma-separated
/// `fragments`; every task when `fragments` is empty. Empty when none matches.
std::vector<const TaskSpec*> tasks_matching(const std::string& fragments);

}  // namespace rkt
