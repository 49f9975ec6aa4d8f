// Checks the registries once they are complete (at program start).
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// Every problem with the registered tasks and kernels, one sentence each: unknown task ids,
/// duplicate ids, malformed tasks. Empty when all is well.
std::vector<std::string> registry_errors();

/// The registered task id nearest to `unknown_id`, or "" when none is close.
std::string closest_task_id(const std::string& unknown_id);

}  // namespace rkt
