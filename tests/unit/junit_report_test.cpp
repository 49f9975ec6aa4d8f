// The JUnit report the supervisor writes from its case records (`rkt test --junit`): suites per
// kernel, counts, failure messages with the replay command, escaping, and where
// --gtest_output=... writes. tests/junit_report_test.sh parses real reports with Python.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/registry/declaration_policy.h"
#include "framework/supervision/case_records_json.h"
#include "framework/supervision/junit_report.h"
#include "rkt/kernel.h"
#include "rkt/task.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

SupervisedRun example_run() {
  SupervisedRun run;
  CaseDetails details;
  details.known = true;
  details.dims = {{"N", 5}};
  details.seed_known = true;
  details.seed = 7;
  details.reproduce = "RKT_SEED=42";
  run.cases.push_back({"softmax/a.correctness_x1", "passed", 12, "max error 1e-7", {}});
  run.cases.push_back(
      {"softmax/a.correctness_x3", "failed", 3, "Failed\nwrong at <3> & \"4\"\nsecond line\n", details});
  run.cases.push_back({"relu/b.correctness_x1", "crashed", 0, "the case produced no verdict", {}});
  run.cases.push_back({"softmax/a.property_shapes", "skipped", 0, "no GPU", {}});
  return run;
}

TEST(JunitReport, OneSuitePerKernelWithCounts) {
  const std::string xml = junit_report_xml(example_run());
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"AllTests\" tests=\"4\" failures=\"2\" errors=\"0\" "
                             "skipped=\"1\""));
  // A kernel's cases stay in one suite although another kernel's case ran between them.
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"softmax/a\" tests=\"3\" failures=\"1\" errors=\"0\" "
                             "skipped=\"1\" time=\"0.015\">"));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"relu/b\" tests=\"1\" failures=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"correctness_x1\" classname=\"softmax/a\" "
                             "time=\"0.012\">\n      <system-out>max error 1e-7</system-out>"));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"no GPU\"/>"));
}

TEST(JunitReport, EachSuiteShowsTheDeclarationsInForceAsProperties) {
  const std::string xml = junit_report_xml(
      example_run(), {{"softmax/a", {{"precision", "fp32"}, {"waive_gate", "replay: memoised \"per buffer\""},
                                     {"supports", "N % 4 == 0"}}}});
  EXPECT_THAT(xml, HasSubstr("skipped=\"1\" time=\"0.015\">\n    <properties>\n"
                             "      <property name=\"precision\" value=\"fp32\"/>\n"
                             "      <property name=\"waive_gate\" value=\"replay: memoised &quot;per buffer&quot;\"/>\n"
                             "      <property name=\"supports\" value=\"N % 4 == 0\"/>\n    </properties>\n"));
  // A suite without declarations given has no <properties>.
  EXPECT_EQ(xml.find("<properties>"), xml.rfind("<properties>"));
}

// The declarations a kernel's suite shows: precision and accumulation always, the rest as declared.
TEST(DeclarationPolicy, RefusesWaiversOperatorsAndNarrowedDomainsButNotAlignment) {
  const TaskSpec& relu = *find_task("relu");  // domains B, N in [1, 16384]
  KernelSpec honest("relu", "aligned", {[](KernelCall&) {}, false}, Device::cpu, "nowhere.cpp", 3);
  honest.requires_alignment(16).supports("N <= 16384").supports("B >= 1");
  EXPECT_TRUE(refused_declarations(honest, relu).empty());
  KernelSpec lowered("relu", "lowered", {[](KernelCall&) {}, false}, Device::cpu, "nowhere.cpp", 9);
  lowered.waive_gate(IntegrityGate::replay, "memoised").allow_operators({"aten::mm"}).supports("N % 64 == 0");
  const std::vector<std::string> refused = refused_declarations(lowered, relu);
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_THAT(refused[0], HasSubstr("kernel 'relu/lowered' (nowhere.cpp:9) waives gate 'replay'"));
  EXPECT_THAT(refused[1], HasSubstr("allows the operator 'aten::mm'"));
  EXPECT_THAT(refused[2], HasSubstr("declares \"N % 64 == 0\", narrower than task 'relu''s domain of N"));
  const auto in_force = declarations_in_force(lowered);
  EXPECT_EQ(in_force.front(), (std::pair<std::string, std::string>{"precision", "fp32"}));
  EXPECT_EQ(in_force.size(), 5u);  // precision, accumulates_in, waive_gate, allow_operators, supports
}

TEST(JunitReport, FailuresCarryTheFirstLineTheMessageAndTheReplayCommand) {
  set_replay_program("rkt");
  const std::string xml = junit_report_xml(example_run());
  // gtest's "Failed" header is not the summary; markup is escaped, in attributes and text.
  EXPECT_THAT(xml, HasSubstr("<failure message=\"wrong at &lt;3&gt; &amp; &quot;4&quot;\" "
                             "type=\"failed\">wrong at &lt;3&gt; &amp; \"4\"\nsecond line\n"
                             "replay: RKT_SEED=42 rkt test --filter 'softmax/a.correctness_x3'"
                             "</failure>"));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"the case produced no verdict\" type=\"crashed\">"
                             "the case produced no verdict\n"
                             "replay: rkt test --filter 'relu/b.correctness_x1'</failure>"));
}

TEST(JunitReport, BytesXmlCannotHoldAreReplaced) {
  SupervisedRun run;
  run.cases.push_back({"t/k.c", "failed", 1, std::string("bell\x07 bad\xff utf8 \xc3\xa9 ok\r"), {}});
  const std::string xml = junit_report_xml(run);
  EXPECT_THAT(xml, HasSubstr("bell\xEF\xBF\xBD bad\xEF\xBF\xBD utf8 \xc3\xa9 ok&#13;"));
  EXPECT_THAT(xml, Not(HasSubstr("\x07")));
}

TEST(JunitReport, ARunWithoutCasesIsNeverGreen) {
  SupervisedRun run;
  run.problems.push_back("a test process was killed by signal 9, before running any case");
  const std::string xml = junit_report_xml(run);
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"problem_1\" classname=\"rkt\""));
  EXPECT_THAT(xml, HasSubstr("killed by signal 9"));
  EXPECT_THAT(junit_report_xml(SupervisedRun{}), HasSubstr("no test case matched the filter"));
}

TEST(JunitReport, GtestOutputNamesTheFileAsGoogleTestDoes) {
  std::string error;
  EXPECT_EQ(junit_path_from_gtest_output("xml", "/x/my_suite", error), kDefaultJunitFile);
  EXPECT_EQ(junit_path_from_gtest_output("xml:out/r.xml", "/x/my_suite", error), "out/r.xml");
  EXPECT_EQ(junit_path_from_gtest_output("xml:out/", "/x/my_suite", error), "out/my_suite.xml");
  EXPECT_EQ(error, "");
  EXPECT_EQ(junit_path_from_gtest_output("json:r.json", "rkt", error), "");
  EXPECT_THAT(error, HasSubstr("--gtest_output takes 'xml', 'xml:FILE' or 'xml:DIR/'"));
  EXPECT_THAT(error, HasSubstr("--json"));
  error.clear();
  EXPECT_EQ(junit_path_from_gtest_output("xml:", "rkt", error), "");
  EXPECT_THAT(error, HasSubstr("needs a file name after 'xml:'"));
}

}  // namespace
}  // namespace rkt
