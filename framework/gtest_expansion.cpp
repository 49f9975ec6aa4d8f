#include "framework/gtest_expansion.h"

#include <gtest/gtest.h>

#include "framework/case_catalog.h"

namespace rkt {
namespace {

class KernelCaseTest : public ::testing::Test {
 public:
  explicit KernelCaseTest(std::function<CaseOutcome()> run) : run_(std::move(run)) {}

  void TestBody() override {
    const CaseOutcome outcome = run_();
    switch (outcome.status) {
      case CaseStatus::passed:
        std::cout << "  " << outcome.message << "\n";
        RecordProperty(kCaseSummaryProperty, outcome.message);  // Reports keep it.
        return;
      case CaseStatus::failed: ADD_FAILURE() << outcome.message; return;
      case CaseStatus::dropped: GTEST_SKIP() << "dropped: " << outcome.message; return;
      case CaseStatus::skipped: GTEST_SKIP() << outcome.message; return;
    }
  }

 private:
  std::function<CaseOutcome()> run_;
};

}  // namespace

void register_gtest_cases() {
  for (KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;  // Reported by registry validation.
    for (KernelCase& kernel_case : cases_of(*kernel, *task)) {
      ::testing::RegisterTest(kernel_case.suite.c_str(), kernel_case.name.c_str(), nullptr,
                              nullptr, kernel->file().c_str(), kernel->line(),
                              [run = kernel_case.run]() -> ::testing::Test* {
                                return new KernelCaseTest(run);
                              });
    }
  }
}

}  // namespace rkt
