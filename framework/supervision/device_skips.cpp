#include "framework/supervision/device_skips.h"

#include "framework/cases/case_catalog.h"
#include "framework/cases/case_selection.h"
#include "framework/cases/correctness_case.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

std::optional<SupervisedRun> skipped_for_missing_devices(const std::string& gtest_filter) {
  SupervisedRun run;
  for (const KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;
    for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
      const std::string name = kernel_case.suite + "." + kernel_case.name;
      if (!matches_gtest_filter(name, gtest_filter)) continue;
      const std::optional<CaseOutcome> skipped = skip_if_device_missing(*kernel);
      if (!skipped) return std::nullopt;  // This case could run here: the child runs them all.
      CaseRecord record;
      record.name = name;
      record.status = "skipped";
      record.message = skipped->message;
      run.cases.push_back(record);
    }
  }
  if (run.cases.empty()) return std::nullopt;
  return run;
}

}  // namespace rkt
