// The test cases one kernel expands into, by name and label. Shared by the gtest expansion,
// `rkt list` and the ctest script so that all three agree.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "framework/cases/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// One test case of a kernel: gtest runs it as `<suite>.<name>`.
struct KernelCase {
  std::string suite;  ///< The kernel's full id, "task/kernel".
  std::string name;   ///< e.g. "correctness_x3", "property_shapes".
  std::string label;  ///< The ctest label group: "correctness" or "property".
  std::function<CaseOutcome()> run;
  /// Its work runs in a process of its own (a worker under compute-sanitizer), so it may run
  /// beside the other cases (framework/supervision/cases_beside.h).
  bool runs_beside = false;
  /// Its verdict rests on a time it measures on the host (the escaped-work gate where device work
  /// cannot be traced compares the device's time with the stream's), so it runs with the GPU
  /// alone, as a benchmark does: another judge's work beside it would read as work the kernel
  /// left behind (framework/timing/device_lease.h).
  bool timed = false;
};

/// The case groups (ctest labels besides the device), in the order they run.
const std::vector<std::string>& case_labels();

/// Every case `kernel` expands into. The kernel's task must be registered.
std::vector<KernelCase> cases_of(const KernelSpec& kernel, const TaskSpec& task);

}  // namespace rkt
