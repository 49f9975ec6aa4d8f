// Verdicts a program can read: case details through the message, JSON records, and case
// selection by --kernel and --filter together.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>

#include "framework/cases/case_selection.h"
#include "framework/supervision/case_records_json.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

CaseDetails example_details() {
  CaseDetails details;
  details.known = true;
  details.dims = {{"B", 3}, {"N", 41}};
  details.scale = -0.25;
  details.seed_known = true;
  details.seed = 123456789;
  details.config = "batch=64,init=kaiming";
  details.reproduce = "RC_PARAMS=\"seed=5 max_success=40 reproduce=AbC; d\"";
  return details;
}

TEST(CaseDetails, TravelAtTheEndOfTheMessageAndComeOffIntact) {
  const std::string original = "softmax/x failed:\n  3 of 123 elements are outside atol";
  std::string message = with_case_details(original, example_details(), "softmax/x.property_shapes");
  EXPECT_THAT(message, HasSubstr("\n[case] dims B=3 N=41; scale -0.25; seed 123456789"));
  // The line carries the whole command, as pasted: environment, program, the case's filter.
  EXPECT_THAT(message, HasSubstr("; reproduce " + example_details().reproduce +
                                 " rkt test --filter 'softmax/x.property_shapes'"));
  message += "\n";  // The verdict channel may add a newline.
  const CaseDetails back = take_case_details(message);
  EXPECT_EQ(message, original);
  ASSERT_TRUE(back.known);
  EXPECT_EQ(back.dims, example_details().dims);
  EXPECT_EQ(back.scale, -0.25);
  EXPECT_EQ(back.seed, 123456789u);
  EXPECT_EQ(back.config, "batch=64,init=kaiming");
  EXPECT_EQ(back.reproduce, example_details().reproduce);
}

TEST(CaseDetails, AMessageWithoutDetailsIsLeftAlone) {
  std::string message = "no details here\n[case] but not a details line\nmore";
  const std::string before = message;
  EXPECT_FALSE(take_case_details(message).known);
  EXPECT_EQ(message, before);
  EXPECT_EQ(with_case_details("plain", CaseDetails{}, "a/b.c"), "plain");
}

TEST(CaseDetails, AWithheldSeedStaysWithheld) {
  CaseDetails details = example_details();
  details.seed_known = false;
  details.reproduce.clear();
  std::string message = with_case_details("m", details, "softmax/x.correctness_x1");
  const CaseDetails back = take_case_details(message);
  ASSERT_TRUE(back.known);
  EXPECT_FALSE(back.seed_known);
  CaseRecord record{"softmax/x.correctness_x1", "failed", 2, "m", back};
  EXPECT_THAT(case_record_json(record), HasSubstr("\"seed\":null"));
}

TEST(CaseRecordsJson, EachCaseHasStatusMessageDimsScaleSeedAndReproduce) {
  CaseRecord record{"softmax/x.property_shapes", "failed", 12.5, "why", example_details()};
  const std::string json = case_record_json(record);
  EXPECT_THAT(json, HasSubstr("\"suite\":\"softmax/x\",\"case\":\"property_shapes\""));
  EXPECT_THAT(json, HasSubstr("\"status\":\"failed\""));
  EXPECT_THAT(json, HasSubstr("\"dims\":{\"B\":3,\"N\":41}"));
  EXPECT_THAT(json, HasSubstr("\"scale\":-0.25,\"seed\":123456789"));
  EXPECT_THAT(json, HasSubstr("rkt test --filter 'softmax/x.property_shapes'"));
  CaseRecord plain{"softmax/x.integrity_replay", "passed", 1, "", CaseDetails{}};
  EXPECT_THAT(case_record_json(plain), Not(HasSubstr("\"dims\"")));
}

TEST(CaseSelection, GtestFilterSyntax) {
  EXPECT_TRUE(matches_gtest_filter("softmax/a.correctness_x1", "softmax/*.correctness_*"));
  EXPECT_FALSE(matches_gtest_filter("relu/a.correctness_x1", "softmax/*.correctness_*"));
  EXPECT_TRUE(matches_gtest_filter("relu/a.property_scale", "*.correctness_*:*.property_*"));
  EXPECT_FALSE(matches_gtest_filter("relu/a.property_scale", "*-*.property_*"));
  EXPECT_TRUE(matches_gtest_filter("relu/a.property_shapes", "-*.correctness_*"));
  EXPECT_TRUE(matches_gtest_filter("relu/ab.x", "relu/a?.x"));
  EXPECT_FALSE(matches_gtest_filter("relu/abc.x", "relu/a?.x"));
  EXPECT_EQ(case_selection_filter({}, ""), "*");
  EXPECT_EQ(case_selection_filter({}, "F"), "F");
  EXPECT_EQ(case_selection_filter({"softmax/k"}, ""), "*softmax/k*.*");
}

std::string output_of(const std::string& command) {
  std::string output;
  std::array<char, 4096> buffer{};
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return output;
  while (std::fgets(buffer.data(), buffer.size(), pipe.get()) != nullptr) output += buffer.data();
  return output;
}

TEST(RktTest, KernelAndFilterBothApplyAndJsonHasOneRecordPerCase) {
  // Before, --filter replaced --kernel: this would have run every kernel's correctness_x1.
  const std::string json = output_of(std::string("RKT_SEED=5 ") + RKT_ADVERSARIES_EXECUTABLE +
                                     " test --kernel softmax/edge_odd --filter '*.correctness_x1:*.property_shapes' --json 2>/dev/null");
  EXPECT_THAT(json, HasSubstr("\"name\": \"softmax/edge_odd.correctness_x1\""));
  EXPECT_THAT(json, HasSubstr("\"name\": \"softmax/edge_odd.property_shapes\""));
  EXPECT_THAT(json, Not(HasSubstr("relu/")));
  EXPECT_THAT(json, Not(HasSubstr("edge_honest")));
  EXPECT_THAT(json, Not(HasSubstr("correctness_x3")));
  // The shape property fails (N odd) and says at which dims, seed and how to replay it.
  EXPECT_THAT(json, HasSubstr("\"status\": \"failed\""));
  EXPECT_THAT(json, HasSubstr("\"reproduce\": \"RC_PARAMS="));
  // The replay line names the binary that ran (not "rkt"), so it works when pasted.
  EXPECT_THAT(json, HasSubstr(std::string("\"reproduce\": \"RKT_SEED=5 ") + RKT_ADVERSARIES_EXECUTABLE +
                              " test --filter 'softmax/edge_odd.correctness_x1'\""));
  EXPECT_THAT(json, HasSubstr("\"passed\": 1,"));  // The summary.
  EXPECT_THAT(json, HasSubstr("\"failed\": 1,"));
}

TEST(RktTest, AWholeKernelIdSelectsThatKernelAloneAndAFragmentEveryIdContainingIt) {
  // relu/cheat_uninitialised_output is contained in relu/cheat_uninitialised_output_cuda: a user
  // who names the first whole must not get the second too (the 2026-12-03 walk-through got
  // rkb_mnist_linear_relu/cpu_loops with --kernel relu/cpu_loops).
  const std::string whole = output_of(std::string(RKT_ADVERSARIES_EXECUTABLE) +
                                      " test --kernel relu/cheat_uninitialised_output --json 2>/dev/null");
  EXPECT_THAT(whole, HasSubstr("\"name\": \"relu/cheat_uninitialised_output.correctness_x1\""));
  EXPECT_THAT(whole, Not(HasSubstr("cheat_uninitialised_output_cuda")));
  const std::string fragment = output_of(std::string(RKT_ADVERSARIES_EXECUTABLE) +
                                         " test --kernel relu/cheat_uninitialised_outpu --filter "
                                         "'*.correctness_x1' --json 2>/dev/null");
  EXPECT_THAT(fragment, HasSubstr("\"name\": \"relu/cheat_uninitialised_output.correctness_x1\""));
  EXPECT_THAT(fragment, HasSubstr("\"name\": \"relu/cheat_uninitialised_output_cuda.correctness_x1\""));
}

}  // namespace
}  // namespace rkt

namespace rkt {
namespace {

TEST(CaseRecords, ReproduceNamesTheBinaryThatRanAndReadsBackItsEnvironment) {
  CaseRecord record;
  record.name = "softmax/edge_odd.correctness_x1";
  record.status = "failed";
  record.details.known = true;
  record.details.reproduce = "RC_PARAMS=\"seed=5 reproduce=AbC; d\" RKT_SEED=5";
  set_replay_program("/opt/my suite/bin/my_suite");
  const std::string json = case_record_json(record);
  set_replay_program("rkt");
  EXPECT_THAT(json, HasSubstr("RKT_SEED=5 '/opt/my suite/bin/my_suite' test --filter "
                              "'softmax/edge_odd.correctness_x1'"));
  for (const std::string program : {"'/opt/my suite/bin/my_suite'", "/usr/bin/my_suite", "rkt"}) {
    const std::string written = record.details.reproduce + " " + program +
                                " test --filter '" + record.name + "'";
    EXPECT_EQ(replay_environment(written, record.name), record.details.reproduce) << program;
  }
  EXPECT_EQ(replay_environment("rkt test --filter '" + record.name + "'", record.name), "");
  EXPECT_EQ(replay_environment("RKT_SEED=5", record.name), "RKT_SEED=5");
}

TEST(CaseRecords, AReplayNamesTheKernelLibraryItJudgedAndReadsItBack) {
  CaseRecord record;
  record.name = "softmax/my_unrolled.values_mixed_magnitudes";
  record.details.known = true;
  record.details.reproduce = "RKT_SEED=7";
  record.details.kernel_library = "/cache/eval/ab 12/libkernels.so";
  const std::string command = case_reproduce(record);
  EXPECT_EQ(command, "RKT_KERNEL_LIBRARY='/cache/eval/ab 12/libkernels.so' RKT_SEED=7 rkt test "
                     "--filter 'softmax/my_unrolled.values_mixed_magnitudes'");
  const ReplayParts parts = parse_replay_command(command);
  EXPECT_EQ(parts.kernel_library, record.details.kernel_library);
  EXPECT_EQ(parts.environment, "RKT_SEED=7");
  // The [case] line carries the library too, and comes off with it.
  std::string message = with_case_details("m", record.details, record.name);
  const CaseDetails back = take_case_details(message);
  EXPECT_EQ(back.kernel_library, record.details.kernel_library);
  EXPECT_EQ(back.reproduce, "RKT_SEED=7");
}

}  // namespace
}  // namespace rkt
