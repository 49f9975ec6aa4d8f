#include "framework/isolation/worker_losses.h"

#include <map>
#include <mutex>

#include "rkt/defaults.h"

namespace rkt {
namespace {

struct LossRecords {
  std::mutex mutex;  // cases beside each other run on threads of their own
  std::map<std::string, std::vector<std::string>> cases_by_kernel;
};

LossRecords& records() {
  static LossRecords losses;
  return losses;
}

}  // namespace

void note_case_lost_worker(const std::string& kernel_id, const std::string& case_name) {
  LossRecords& losses = records();
  const std::lock_guard<std::mutex> lock(losses.mutex);
  losses.cases_by_kernel[kernel_id].push_back(case_name);
}

std::vector<std::string> cases_that_lost_workers(const std::string& kernel_id) {
  LossRecords& losses = records();
  const std::lock_guard<std::mutex> lock(losses.mutex);
  const auto found = losses.cases_by_kernel.find(kernel_id);
  return found == losses.cases_by_kernel.end() ? std::vector<std::string>{} : found->second;
}

std::string not_run_after_worker_losses(const std::string& kernel_id) {
  const std::vector<std::string> cases = cases_that_lost_workers(kernel_id);
  if (cases.size() < static_cast<std::size_t>(defaults::kWorkerLossCasesBeforeSkipping)) return "";
  std::string names;
  for (const std::string& name : cases) names += (names.empty() ? "" : ", ") + name;
  return "not run: the kernel lost its worker (it died, or its CUDA context was lost) in " +
         std::to_string(cases.size()) + " cases (" + names +
         "), so it fails; each of its other cases would start another worker";
}

}  // namespace rkt
