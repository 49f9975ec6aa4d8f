#include "framework/supervision/worker_loan.h"

#include "framework/isolation/kernel_library.h"

namespace rkt {

bool ended_normally(const SupervisedRun& run) {
  if (!run.problems.empty()) return false;
  for (const CaseRecord& record : run.cases) {
    if (record.status != "passed" && record.status != "failed" && record.status != "skipped") {
      return false;
    }
  }
  return true;
}

SupervisedRun run_supervised_with_lent_worker(SupervisionOptions options) {
  LentWorker lent = lend_worker();
  options.after_abnormal_end = [&lent] {
    // The worker may be mid-request or hung in the dead child's kernel: the next child gets a
    // fresh one rather than waiting for it.
    return_worker(lent, /*reusable=*/false);
    lent = lend_worker();
  };
  const SupervisedRun run = run_supervised(options);
  return_worker(lent, ended_normally(run));
  return run;
}

}  // namespace rkt
