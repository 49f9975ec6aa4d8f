#include "framework/supervision/device_skips.h"

#include <unistd.h>

#include <cstdlib>

#include "framework/cases/case_selection.h"
#include "framework/cases/correctness_case.h"

namespace rkt {

std::optional<SupervisedRun> skipped_for_missing_devices(const std::string& gtest_filter) {
  SupervisedRun run;
  bool some_case_runs_here = false;
  for_each_selected_case({}, gtest_filter, [&](const KernelSpec& kernel, const std::string& name) {
    const std::optional<CaseOutcome> skipped = skip_if_device_missing(kernel);
    if (!skipped) {
      some_case_runs_here = true;  // This case could run here: the child runs them all.
      return false;
    }
    CaseRecord record;
    record.name = name;
    record.status = "skipped";
    record.message = skipped->message;
    run.cases.push_back(record);
    return true;
  });
  if (some_case_runs_here || run.cases.empty()) return std::nullopt;
  return run;
}

bool selection_surely_needs_a_missing_gpu() {
  const char* device = std::getenv(kSelectionDeviceVariable);
  if (device == nullptr || std::string(device) != "cuda") return false;
  return ::access("/dev/nvidiactl", F_OK) != 0 && ::access("/proc/driver/nvidia/version", F_OK) != 0;
}

}  // namespace rkt
