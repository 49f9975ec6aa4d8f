#include "framework/supervision/gtest_expansion.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "framework/benchmarks/benchmark_case.h"
#include "framework/benchmarks/benchmark_files.h"
#include "framework/cases/case_announcement.h"
#include "framework/cases/case_catalog.h"
#include "framework/cases/correctness_case.h"
#include "framework/cases/failed_cases.h"
#include "framework/isolation/device_memory_return.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/worker_hangs.h"
#include "framework/isolation/worker_losses.h"
#include "framework/runtime/device_memory.h"
#include "framework/supervision/case_records_json.h"
#include "framework/supervision/cases_beside.h"
#include "framework/supervision/device_memory_retry.h"
#include "framework/supervision/verdict_channel.h"
#include "framework/timing/device_lease.h"
#include "framework/timing/device_memory_wanted.h"

namespace rkt {
namespace {

class KernelCaseTest : public ::testing::Test {
 public:
  KernelCaseTest(std::function<CaseOutcome()> run, std::string file, int line)
      : run_(std::move(run)), file_(std::move(file)), line_(line) {}

  void TestBody() override {
    const CaseOutcome outcome = run_();
    const ::testing::TestInfo& info = *::testing::UnitTest::GetInstance()->current_test_info();
    // The details (dims, scale, seed, the whole replay command) ride at the end of the message;
    // the supervisor takes them off into its record (framework/supervision/case_records_json.h).
    const std::string message =
        with_case_details(outcome.message, outcome.details,
                          std::string(info.test_suite_name()) + "." + info.name());
    // A failure or skip is located at the kernel's ROBUST_KERNEL_TEST line, the user's code,
    // not at this file: gtest prints the location above the message, and a framework path there
    // ("../../framework/supervision/gtest_expansion.cpp:32: Failure") tells a user nothing.
    switch (outcome.status) {
      case CaseStatus::passed:
        std::cout << "  " << outcome.message << "\n";
        RecordProperty(kCaseSummaryProperty, message);  // Reports keep it.
        return;
      case CaseStatus::failed: ADD_FAILURE_AT(file_.c_str(), line_) << message; return;
      case CaseStatus::dropped: skip("dropped: " + message); return;
      case CaseStatus::skipped: skip(message); return;
    }
  }

 private:
  // GTEST_SKIP() at the kernel's line (gtest has no public GTEST_SKIP_AT).
  void skip(const std::string& message) const {
    GTEST_MESSAGE_AT_(file_.c_str(), line_, message.c_str(),
                      ::testing::TestPartResult::kSkip);
  }

  std::function<CaseOutcome()> run_;
  std::string file_;
  int line_;
};

// Why the kernel's other cases in this process do not let it be timed, or "" when they passed:
// the benchmark runs last in the kernel's suite, in the child that ran its cases. (A child
// started after another died in a case does not see that case; the main job, which does, drops
// such a benchmark: framework/runs/main_job.cpp.)
std::string cases_not_passed_reason() {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const ::testing::TestSuite* suite = unit.current_test_suite();
  const ::testing::TestInfo* self = unit.current_test_info();
  if (suite == nullptr) return "";
  int ran = 0, passed = 0;
  for (int i = 0; i < suite->total_test_count(); ++i) {
    const ::testing::TestInfo* info = suite->GetTestInfo(i);
    if (info == self || !info->should_run()) continue;
    ++ran;
    if (info->result()->Failed()) return "its cases did not all pass, and a failing kernel is not timed";
    if (!info->result()->Skipped()) ++passed;
  }
  if (ran > 0 && passed == 0) return "its cases were all skipped, and a kernel that was not judged is not timed";
  return "";
}

// What this judge keeps on `kernel`'s GPU between cases, given back for a judge short of memory
// (framework/supervision/device_memory_retry.h): the cached references with their inputs first,
// so that their shared buffers join the idle ones, then those and LibTorch's cache.
void give_back_kept_device_memory(const KernelSpec& kernel) {
  if (kernel.device() != Device::cuda) return;
  forget_cached_references();
  give_back_device_memory(kernel);
}

}  // namespace

// The main job's benchmark of one kernel, run as a supervised case after the kernel's other
// cases, in the same child (one process start fewer a kernel), so that a crash or hang is
// recorded like any other; its record goes to a file the job reads back.
class KernelBenchmarkTest : public ::testing::Test {
 public:
  KernelBenchmarkTest(const KernelSpec& kernel, const TaskSpec& task, std::string directory)
      : kernel_(kernel), task_(task), directory_(std::move(directory)) {}

  void TestBody() override {
    if (const std::string reason = cases_not_passed_reason(); !reason.empty()) GTEST_SKIP() << reason;
    // The cases' cached device memory goes back to the device: the baselines' allocations are
    // timed against a pool as a fresh process would hold it.
    release_cached_device_memory(kernel_.device());
    // Its inputs would come with `rkt test --filter '<kernel>.benchmark'`, which replays nothing:
    // the case exists only under the main job.
    const WithheldCaseInputs withheld;
    const auto timed = [&] {
      // The device alone while timing: judges sharing it wait (framework/timing/device_lease.h).
      const ExclusiveDeviceLease lease(kernel_.device());
      return benchmark_kernel(kernel_, task_, peaks_path(directory_, kernel_.device()),
                              empty_request_path(directory_, kernel_.device()));
    };
    BenchmarkRecord record = timed();
    // Other judges' memory kept on the GPU (run 46: a sharded main job) is not the kernel's
    // failure: once more after this judge gave back its own and asked them for theirs
    // (framework/supervision/device_memory_retry.h).
    if (!record.measured && kernel_.device() == Device::cuda &&
        ran_out_of_device_memory(record.problem)) {
      const std::string first_problem = record.problem;
      give_back_kept_device_memory(kernel_);
      const DeviceMemoryWanted wanted(kernel_.device());
      record = timed();
      if (!record.measured) {
        record.problem +=
            " (timed a second time after the first ran out of device memory with "
            "other judges' memory on the GPU: " +
            first_problem + ")";
      }
    }
    std::ofstream(benchmark_record_path(directory_, kernel_)) << serialize(record);
    if (!record.measured) GTEST_SKIP() << record.problem;
  }

 private:
  const KernelSpec& kernel_;
  const TaskSpec& task_;
  std::string directory_;
};

void register_gtest_cases() {
  const char* benchmark_directory = std::getenv(kBenchmarkDirectoryVariable);
  for (KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;  // Reported by registry validation.
    for (KernelCase& kernel_case : cases_of(*kernel, *task)) {
      // A case shares its device's lease while it runs, beside or not: a judge timing on the
      // same GPU waits for it, and it waits for that judge; a case that measures a time holds it
      // alone, as a benchmark does (framework/timing/device_lease.h).
      std::function<CaseOutcome()> run =
          [inner = kernel_case.run, kernel, device = kernel->device(), timed = kernel_case.timed,
           kernel_id = kernel->full_id(), case_name = kernel_case.name,
           beside = kernel_case.runs_beside]() -> CaseOutcome {
        // A kernel whose worker hung in an earlier case would hang here too, after as long.
        if (const auto hang = worker_hang_of(kernel_id)) {
          return {CaseStatus::skipped, not_run_after_hang(*hang)};
        }
        // One that lost its worker in several cases fails already; the rest would each start one.
        // Not the cases beside: the sanitizer's run workers of their own, and its finding (an
        // illegal address, where) is what explains such a kernel.
        if (std::string losses = beside ? "" : not_run_after_worker_losses(kernel_id);
            !losses.empty()) {
          return {CaseStatus::skipped, std::move(losses)};
        }
        const std::size_t lost_before = workers_lost();
        const auto leased = [&] {
          if (timed) {
            const ExclusiveDeviceLease lease(device);
            return inner();
          }
          if (beside) {
            const SharedDeviceLease lease(device);
            return inner();
          }
          // A judge on this GPU that ran short of memory gets what this one keeps between cases:
          // before this case waits for its share, while it waits (behind a judge timing alone,
          // or the one that ran short), and before it lets go of it
          // (framework/timing/device_memory_wanted.h).
          bool given_back = false;
          const auto give_back_if_wanted = [&] {
            if (given_back || !device_memory_wanted_by_another(device)) return;
            give_back_kept_device_memory(*kernel);
            given_back = true;
          };
          give_back_if_wanted();
          const SharedDeviceLease lease(device, give_back_if_wanted);
          CaseOutcome shared_outcome = inner();
          given_back = false;
          give_back_if_wanted();
          return shared_outcome;
        };
        CaseOutcome outcome = leased();
        if (!timed && !beside && device == Device::cuda) {
          outcome = run_again_alone_if_short_of_memory(std::move(outcome), [&] {
            give_back_kept_device_memory(*kernel);
            const DeviceMemoryWanted wanted(device);
            const ExclusiveDeviceLease lease(device);
            return inner();
          });
        }
        // Only the main thread's cases call the kernel's worker: a case beside that ends after the
        // worker hung was not the one that hung (run 44 named sanitizer_synccheck for a hang in
        // property_shapes).
        if (!beside) name_case_that_hung(kernel_id, case_name);
        // Only a failed case counts, so that the kernel skipped after them fails whatever the rest
        // would say. The count is the process's: a case beside (the sanitizer's, with workers of
        // its own) would see the main thread's losses as its own.
        if (!beside && outcome.status == CaseStatus::failed && workers_lost() > lost_before) {
          note_case_lost_worker(kernel_id, case_name);
        }
        // A failed kernel's sanitizer cases beside need not run to their limit (failed_cases.h).
        if (!beside && outcome.status == CaseStatus::failed) note_failed_case(kernel_id, case_name);
        return outcome;
      };
      if (kernel_case.runs_beside) {
        const std::string full_name = kernel_case.suite + "." + kernel_case.name;
        offer_case_beside(full_name, std::move(run));
        run = [full_name] {
          const CaseRunBeside ran = outcome_of_case_beside(full_name);
          // Its record's time is the run's, not this collecting gtest case's (verdict_channel.h).
          ::testing::Test::RecordProperty(kCaseRanBesideMillisecondsProperty,
                                          std::to_string(static_cast<long long>(ran.milliseconds)));
          return ran.outcome;
        };
      }
      ::testing::RegisterTest(kernel_case.suite.c_str(), kernel_case.name.c_str(), nullptr,
                              nullptr, kernel->file().c_str(), kernel->line(),
                              [run = std::move(run), file = kernel->file(),
                               line = kernel->line()]() -> ::testing::Test* {
                                return new KernelCaseTest(run, file, line);
                              });
    }
    if (benchmark_directory != nullptr) {  // Last: it runs only when the cases before it passed.
      ::testing::RegisterTest(kernel->full_id().c_str(), "benchmark", nullptr, nullptr,
                              kernel->file().c_str(), kernel->line(),
                              [kernel, task, directory = std::string(benchmark_directory)]()
                                  -> ::testing::Test* {
                                return new KernelBenchmarkTest(*kernel, *task, directory);
                              });
    }
  }
}

}  // namespace rkt
