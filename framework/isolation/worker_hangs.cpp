#include "framework/isolation/worker_hangs.h"

#include <map>
#include <mutex>

namespace rkt {
namespace {

struct HangRecords {
  std::mutex mutex;  // cases beside each other run on threads of their own
  std::map<std::string, WorkerHang> by_kernel;
};

HangRecords& records() {
  static HangRecords hangs;
  return hangs;
}

}  // namespace

void note_worker_hung(const std::string& kernel_id, int seconds) {
  HangRecords& hangs = records();
  const std::lock_guard<std::mutex> lock(hangs.mutex);
  hangs.by_kernel.emplace(kernel_id, WorkerHang{"", seconds});
}

std::optional<WorkerHang> worker_hang_of(const std::string& kernel_id) {
  HangRecords& hangs = records();
  const std::lock_guard<std::mutex> lock(hangs.mutex);
  const auto found = hangs.by_kernel.find(kernel_id);
  if (found == hangs.by_kernel.end()) return std::nullopt;
  return found->second;
}

void name_case_that_hung(const std::string& kernel_id, const std::string& case_name) {
  HangRecords& hangs = records();
  const std::lock_guard<std::mutex> lock(hangs.mutex);
  const auto found = hangs.by_kernel.find(kernel_id);
  if (found != hangs.by_kernel.end() && found->second.case_name.empty()) {
    found->second.case_name = case_name;
  }
}

std::string not_run_after_hang(const WorkerHang& hang) {
  const std::string which = hang.case_name.empty() ? "an earlier case" : hang.case_name;
  return "not run: " + which + " hung after " + std::to_string(hang.seconds) +
         " s (the kernel's worker did not answer and was killed; each of its other cases would "
         "wait as long)";
}

}  // namespace rkt
