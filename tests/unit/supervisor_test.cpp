// The verdict protocol and the supervisor's exit codes, without child processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/supervisor.h"
#include "framework/verdict_channel.h"

namespace rkt {
namespace {

TEST(VerdictChannel, EscapingRoundTrips) {
  const std::string message = "line one\nline \\two\\n\n";
  const std::string escaped = escape_record_field(message);
  EXPECT_EQ(escaped.find('\n'), std::string::npos);
  EXPECT_EQ(unescape_record_field(escaped), message);
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

}  // namespace
}  // namespace rkt
