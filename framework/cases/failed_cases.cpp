#include "framework/cases/failed_cases.h"

#include <map>
#include <mutex>

namespace rkt {
namespace {

struct FailureRecords {
  std::mutex mutex;  // the cases beside run on threads of their own
  std::map<std::string, std::string> first_by_kernel;
};

FailureRecords& records() {
  static FailureRecords failures;
  return failures;
}

}  // namespace

void note_failed_case(const std::string& kernel_id, const std::string& case_name) {
  FailureRecords& failures = records();
  const std::lock_guard<std::mutex> lock(failures.mutex);
  failures.first_by_kernel.emplace(kernel_id, case_name);
}

std::string first_failed_case(const std::string& kernel_id) {
  FailureRecords& failures = records();
  const std::lock_guard<std::mutex> lock(failures.mutex);
  const auto found = failures.first_by_kernel.find(kernel_id);
  return found == failures.first_by_kernel.end() ? "" : found->second;
}

}  // namespace rkt
