// The verdict protocol (and the case inputs announced through it) and the supervisor's exit
// codes, without child processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/base/record_fields.h"
#include "framework/cases/case_announcement.h"
#include "framework/supervision/gpu_pinning.h"
#include "framework/supervision/supervisor.h"
#include "framework/supervision/verdict_channel.h"

namespace rkt {
namespace {

TEST(VerdictChannel, EscapingRoundTrips) {
  const std::string message = "line one\nline \\two\\n\n";
  const std::string escaped = escape_record_field(message);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  EXPECT_EQ(unescape_record_field(escaped), message);
}

TEST(CaseAnnouncement, ReachesTheListenerUnlessWithheld) {
  std::vector<CaseDetails> heard;
  set_case_inputs_listener([&heard](const CaseDetails& details) { heard.push_back(details); });
  CaseDetails details;
  details.known = true;
  details.dims = {{"N", 5}};
  announce_case_inputs(details);
  {
    const WithheldCaseInputs withheld;  // a hidden case
    announce_case_inputs(details);
  }
  announce_case_inputs(CaseDetails{});  // nothing known: nothing to say
  set_case_inputs_listener(nullptr);
  announce_case_inputs(details);
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].dims, details.dims);
}

SupervisedRun run_of(std::vector<std::string> statuses) {
  SupervisedRun run;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    run.cases.push_back({"suite.case" + std::to_string(i), statuses[i], 1.0, ""});
  }
  return run;
}

TEST(SupervisedExitCode, PassesOnlyWhenSomethingPassedAndNothingFailed) {
  EXPECT_EQ(supervised_exit_code(run_of({"passed", "skipped"})), 0);
  EXPECT_EQ(supervised_exit_code(run_of({"passed", "failed"})), 1);
  EXPECT_EQ(supervised_exit_code(run_of({"passed", "crashed"})), 1);
  EXPECT_EQ(supervised_exit_code(run_of({"skipped", "skipped"})), 77);
  EXPECT_EQ(supervised_exit_code(run_of({})), 1) << "no case at all must not pass";
  SupervisedRun with_problem = run_of({"passed"});
  with_problem.problems.push_back("a test process exited between cases");
  EXPECT_EQ(supervised_exit_code(with_problem), 1);
}

TEST(Summarize, EndsWithThePlainCountLine) {
  const std::string text = summarize(run_of({"passed", "failed", "crashed", "skipped"}));
  EXPECT_THAT(text, ::testing::EndsWith("1 passed, 2 failed, 1 skipped\n"));
}

// ctest's resource allocation names one GPU per CUDA test; the judge pins it.
TEST(GpuPinning, ReadsTheDeviceOfCtestsAllocation) {
  EXPECT_EQ(gpu_of_ctest_allocation("id:1,slots:1"), "1");
  EXPECT_EQ(gpu_of_ctest_allocation("slots:1,id:3"), "3");
  EXPECT_EQ(gpu_of_ctest_allocation("id:0,slots:1;id:1,slots:1"), "0");
  EXPECT_EQ(gpu_of_ctest_allocation("slots:1"), "");
  EXPECT_EQ(gpu_of_ctest_allocation(""), "");
}

TEST(GpuPinning, SetsTheVisibleDeviceOnlyUnderACtestAllocation) {
  unsetenv("CTEST_RESOURCE_GROUP_COUNT");
  EXPECT_EQ(pin_gpu_from_ctest_resources(), "");
  const char* before = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string saved = before ? before : "";
  setenv("CTEST_RESOURCE_GROUP_COUNT", "1", 1);
  setenv("CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1", 1);
  EXPECT_EQ(pin_gpu_from_ctest_resources(), "ctest allocated GPU 1: CUDA_VISIBLE_DEVICES=1");
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "1");
  unsetenv("CTEST_RESOURCE_GROUP_COUNT");
  unsetenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (before) setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1); else unsetenv("CUDA_VISIBLE_DEVICES");
}

}  // namespace
}  // namespace rkt
