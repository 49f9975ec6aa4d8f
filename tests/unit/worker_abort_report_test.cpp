// The worker's abort report (framework/worker/abort_report.h): a worker that dies by
// std::terminate before its first reply says on its standard error which startup step it was in,
// and prints its call stack; the judge still reports the death ("killed by signal 6").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "framework/isolation/worker_process.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

TEST(WorkerAbortReport, ALibraryThatTerminatesWhileLoadingIsNamedWithItsStep) {
  WorkerLaunch launch;
  launch.executable = RKT_WORKER_EXECUTABLE;
  launch.library = RKT_TERMINATING_LIBRARY;
  std::string judge_error;
  // The worker inherits the test's standard error, which this captures.
  ::testing::internal::CaptureStderr();
  try {
    WorkerProcess worker(launch);
    worker.description();
  } catch (const std::exception& error) {
    judge_error = error.what();
  }
  const std::string worker_said = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(judge_error, HasSubstr("signal 6"));
  EXPECT_THAT(worker_said,
              HasSubstr("rkt-worker: std::terminate with no exception in flight while loading the "
                        "kernel library"));
  EXPECT_THAT(worker_said, HasSubstr("rkt-worker: call stack (innermost first):"));
  EXPECT_THAT(worker_said, HasSubstr("libterminates_while_loading"))
      << "the stack names the library whose initializer called std::terminate";
}

}  // namespace
}  // namespace rkt
