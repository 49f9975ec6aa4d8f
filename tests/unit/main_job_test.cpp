// The main job end to end on the adversarial suite: a crashing kernel is recorded and the run
// goes on; a kernel that passes its cases is benchmarked; every report file is written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rkt {
namespace {

using ::testing::HasSubstr;

std::string read(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(MainJob, RecordsACrashAndBenchmarksOnlyKernelsThatPassed) {
  // No std::filesystem here: calls can bind to LibTorch's own copy, which crashes.
  const std::string out = ::testing::TempDir() + "rkt_main_job";
  std::system(("rm -rf " + out).c_str());
  const std::string command = std::string("CI=1 ") + RKT_ADVERSARIES_EXECUTABLE +
                              " run --kernel cheat_segfaults --out " + out +
                              " > /dev/null 2>&1";
  EXPECT_NE(std::system(command.c_str()), 0) << "a run with a failing kernel must fail";
  const std::string json = read(out + "/results.json");
  EXPECT_THAT(json, HasSubstr("\"schema\": \"rkt-results/1\""));
  EXPECT_THAT(json, HasSubstr("\"finished\": true"));
  EXPECT_THAT(json, HasSubstr("\"status\": \"crashed\""));
  EXPECT_THAT(json, HasSubstr("its cases did not all pass, and a failing kernel is not timed"));
  EXPECT_THAT(read(out + "/report.md"), HasSubstr("relu/cheat_segfaults"));
  EXPECT_THAT(read(out + "/report.html"), HasSubstr("<svg"));
}

TEST(MainJob, BenchmarksAKernelThatPassesAgainstItsBaselines) {
  // No std::filesystem here: calls can bind to LibTorch's own copy, which crashes.
  const std::string out = ::testing::TempDir() + "rkt_main_job2";
  std::system(("rm -rf " + out).c_str());
  const std::string command = std::string("CI=1 ") + RKT_ADVERSARIES_EXECUTABLE +
                              " run --kernel waives_borrowed_gate --out " + out +
                              " > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0);
  const std::string json = read(out + "/results.json");
  EXPECT_THAT(json, HasSubstr("\"measured\": true"));
  EXPECT_THAT(json, HasSubstr("\"name\": \"eager_fp32\", \"available\": true"));
  EXPECT_THAT(json, HasSubstr("\"waived_gates\": {\"borrowed_computation\": \"wraps at::softmax"));
  EXPECT_THAT(json, HasSubstr("\"copy_bytes_per_second\""));
  EXPECT_THAT(read(out + "/report.md"), HasSubstr("gate borrowed_computation waived"));
}

}  // namespace
}  // namespace rkt
