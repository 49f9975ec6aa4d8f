// Aggregates and the report writers on a synthetic run, against golden files in tests/golden/.
// RKT_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "framework/runs/report_notes.h"
#include "framework/runs/run_report.h"
#include "framework/supervision/case_records_json.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string normalized_space(const std::string& text) {
  std::string result;
  for (char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
    if (space && (result.empty() || result.back() == ' ')) continue;
    result += space ? ' ' : c;
  }
  while (!result.empty() && result.back() == ' ') result.pop_back();
  return result;
}

KernelReport kernel_report(const std::string& task, const std::string& kernel, double median,
                           double baseline_median, const std::string& case_status) {
  KernelReport report;
  report.task = task;
  report.kernel = kernel;
  report.device = "cuda";
  report.precision = "fp32";
  report.cases.cases = {{task + "/" + kernel + ".correctness_x1", case_status, 1.0,
                         case_status == "failed" ? "output 'y': 3 of 100 elements are outside" : ""}};
  BenchmarkRecord& bench = report.benchmark;
  bench.task = task;
  bench.kernel = kernel;
  bench.device = "cuda";
  bench.measured = case_status == "passed";
  if (!bench.measured) {  // As the main job records a kernel whose cases did not all pass.
    bench.problem = "its cases did not all pass, and a failing kernel is not timed";
    return report;
  }
  bench.dims = "B=128 N=4096";  // Every speedup shows it.
  bench.time = summarize_samples({median * 0.99, median, median * 1.01});
  bench.floor_ms = 0.1;
  bench.peak_memory_bytes = 2e6;
  BaselineResult eager;
  eager.name = "eager_fp32";
  eager.available = true;
  // Three samples, as for the kernel: a relative noise (1%) that rkt compare's ratios combine.
  eager.time =
      summarize_samples({baseline_median * 0.99, baseline_median, baseline_median * 1.01});
  eager.peak_memory_bytes = 4e6;
  eager.speedup = {baseline_median / median, baseline_median / median * 0.95,
                   baseline_median / median * 1.05};
  eager.memory_efficiency = 2;
  eager.measures = "the task's reference in LibTorch eager";
  BaselineResult compiled;
  compiled.name = "compiled";
  compiled.absent_reason = "no Python twin";
  bench.baselines = {eager, compiled};
  bench.strongest_baseline = "eager_fp32";
  bench.speedup_vs_strongest = eager.speedup;
  return report;
}

// A kernel that fails a correctness case and a property, as a run records it: the messages (with
// characters HTML must escape), the inputs of the deciding cases (the property's shrunk trial)
// and the environment that replays each; not timed.
KernelReport failing_kernel_report() {
  KernelReport report = kernel_report("softmax", "wrong", 1.0, 2.0, "failed");
  CaseRecord& correctness = report.cases.cases[0];
  correctness.message = "output 'y': 3 of 100 elements are outside |y - ref| <= 1e-05 & rel 1e-05";
  correctness.details.known = true;
  correctness.details.dims = {{"B", 128}, {"N", 4096}};
  correctness.details.seed_known = true;
  correctness.details.seed = 42;
  correctness.details.config = "default";
  correctness.details.reproduce = "RKT_SEED=42";
  CaseRecord property{"softmax/wrong.property_dims", "failed", 2.5,
                      "property_dims failed after 7 passing trials; smallest failing case found "
                      "by shrinking:\n  output 'y' is NaN at [0, 16] (N=17 > 16)\n  "
                      "counterexample:\n    Dims = {B=1, N=17}\n  replay it with: "
                      "RC_PARAMS=\"reproduce=BchdlNGdvJ3XzVGd\""};
  property.details.known = true;
  property.details.dims = {{"B", 1}, {"N", 17}};
  property.details.seed_known = true;
  property.details.seed = 42;
  property.details.config = "default";
  property.details.reproduce = "RC_PARAMS=\"reproduce=BchdlNGdvJ3XzVGd\"";
  report.cases.cases.push_back(property);
  report.cases.cases.push_back({"softmax/wrong.integrity_inputs", "passed", 0.5, ""});
  return report;
}

RunReport synthetic_run() {
  RunReport run;
  run.started_utc = "2026-11-30T12:00:00Z";
  run.seed = 42;
  run.hidden_inputs = "none";
  run.isolation = "isolated (synthetic run)";
  run.finished = true;
  DevicePeaks peaks;
  peaks.device_name = "Synthetic GPU";
  peaks.copy_bytes_per_second = 4e12;
  peaks.fp32_flops_per_second = 5e13;
  peaks.tf32_flops_per_second = 4e14;
  peaks.harness_overhead_ms = 0.004;
  run.peaks["cuda"] = peaks;
  run.kernels = {kernel_report("softmax", "fast", 1.0, 3.0, "passed"),
                 kernel_report("softmax", "slow", 2.0, 1.5, "passed"),
                 failing_kernel_report()};
  run.kernels[0].supported_dims = {"N % 4 == 0", "N <= 8192"};  // Every report must show them.
  run.kernels[0].alignment_bytes = 16;  // Every report must show it too.
  run.kernels[0].cases.processes = 2;  // a crash: the first child started ahead, one forked
  run.kernels[0].cases.processes_started_ahead = 1;
  KernelReport impossible = kernel_report("relu", "too_fast", 0.01, 1.0, "passed");
  impossible.benchmark.impossible = true;
  run.kernels.push_back(impossible);
  KernelReport excluded = kernel_report("zeros_task", "any", 1.0, 2.0, "passed");
  excluded.task_severity = "excluded";
  excluded.task_reasons = {"trivial kernel: all zeros passes fp32 correctness on every distribution"};
  run.kernels.push_back(excluded);
  KernelReport blind = kernel_report("long_mean", "rowwise", 1.0, 1.0, "passed");
  blind.task_severity = "precision_blind";
  blind.task_reasons = {
      "lower precision: the reference computed in bf16 passes fp32 correctness on every "
      "distribution"};
  run.kernels.push_back(blind);
  return run;
}

TEST(Aggregate, CountsAsTheFieldDoes) {
  const std::vector<DeviceAggregates> aggregates = aggregate(synthetic_run().kernels);
  ASSERT_EQ(aggregates.size(), 1u);
  const DeviceAggregates& cuda = aggregates[0];
  EXPECT_EQ(cuda.kernels, 5) << "the excluded task's kernel is left out";
  EXPECT_EQ(cuda.excluded_left_out, 1);
  EXPECT_EQ(cuda.precision_blind, 1);
  EXPECT_EQ(cuda.correct, 3) << "a failed case and an impossible time are not correct";
  EXPECT_DOUBLE_EQ(cuda.correctness_rate, 0.6);
  EXPECT_EQ(cuda.impossible, 1);
  // fast: 3x, 0.75x and 1x (the precision-blind task, scored) among 5 kernels.
  EXPECT_DOUBLE_EQ(cuda.fast_p.at("0"), 0.6);
  EXPECT_DOUBLE_EQ(cuda.fast_p.at("1"), 0.2);
  EXPECT_DOUBLE_EQ(cuda.fast_p.at("2"), 0.2);
  EXPECT_NEAR(cuda.geomean_speedup.at("strongest"), std::cbrt(3.0 * 0.75 * 1.0), 1e-12);
  EXPECT_DOUBLE_EQ(cuda.geomean_memory_efficiency, 2);
}

TEST(Aggregate, LeavesExcludedTasksOut) {
  RunReport run = synthetic_run();
  run.kernels[0].task_severity = "excluded";
  const DeviceAggregates cuda = aggregate(run.kernels)[0];
  EXPECT_EQ(cuda.excluded_left_out, 2) << "zeros_task's kernel and this one";
  EXPECT_EQ(cuda.kernels, 4);
}

TEST(Aggregate, KeepsPrecisionBlindTasksAndMarksThem) {
  RunReport run = synthetic_run();
  run.kernels[0].task_severity = "precision_blind";
  run.kernels[0].task_reasons = {"lower precision: the reference computed in bf16 passes"};
  const DeviceAggregates cuda = aggregate(run.kernels)[0];
  EXPECT_EQ(cuda.excluded_left_out, 1) << "only zeros_task's kernel";
  EXPECT_EQ(cuda.kernels, 5) << "a precision-blind task stays in the aggregates";
  EXPECT_EQ(cuda.precision_blind, 2) << "long_mean's kernel and this one";
  EXPECT_THAT(results_json(run), ::testing::HasSubstr("\"precision_claim\": \"unverifiable\""));
  EXPECT_THAT(report_markdown(run), ::testing::HasSubstr("softmax/fast (task precision-blind)"));
  EXPECT_THAT(report_markdown(run), ::testing::HasSubstr("the fp32 claim is unverifiable"));
  EXPECT_THAT(report_html(run), ::testing::HasSubstr("precision-blind: precision claims"));
}

TEST(ReportWriters, AKernelThatPassedButWasNotTimedSaysSo) {
  // Its benchmark was refused: the verdict stays pass (every case passed), and says "not timed"
  // beside it with the reason in the notes (before: a bare "pass", and `rkt compare` read "not
  // measured", "No regression").
  RunReport run = synthetic_run();
  BenchmarkRecord& bench = run.kernels[0].benchmark;
  bench.measured = false;
  bench.problem = "timing refused: 60 of 116 timed requests unexplained by the judge's clock";
  const std::string markdown = report_markdown(run);
  EXPECT_THAT(markdown, ::testing::HasSubstr("| pass (not timed) |"));
  EXPECT_THAT(markdown, ::testing::HasSubstr("not benchmarked: timing refused: 60 of 116"));
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(RKT_GOLDEN_DIRECTORY) + "/" + name;
  if (const char* update = std::getenv("RKT_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path) << actual;
  }
  std::ifstream file(path);
  ASSERT_TRUE(file) << "missing golden file " << path << " (RKT_UPDATE_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

TEST(ReportWriters, ResultsJsonMatchesItsGoldenFile) {
  expect_golden("results.json", results_json(synthetic_run()));
}

TEST(ReportWriters, MarkdownMatchesItsGoldenFile) {
  expect_golden("report.md", report_markdown(synthetic_run()));
}

TEST(ReportWriters, HtmlMatchesItsGoldenFileAndIsSelfContained) {
  const std::string html = report_html(synthetic_run());
  expect_golden("report.html", html);
  EXPECT_THAT(html, ::testing::HasSubstr("<svg"));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("http://cdn")));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<script src")));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("<link")));
}

// The text a reader sees on a page: tags dropped (those that start a block or a cell as a space),
// the escaped characters restored, every run of white space one space.
std::string visible_text(const std::string& html) {
  std::string text = std::regex_replace(
      html, std::regex("</?(li|ul|td|th|tr|p|h[1-6]|br|table|title|text)( [^>]*)?>"), " ");
  text = std::regex_replace(text, std::regex("<[^>]*>"), "");
  for (const auto& [entity, character] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    text = std::regex_replace(text, std::regex(entity), character);
  }
  return normalized_space(text);
}

std::string markdown_plain(const std::string& line) {
  std::string text = std::regex_replace(line, std::regex("\\*\\*|`"), "");
  return normalized_space(text);
}

// Issue 20: a failed kernel showed only a red FAIL on the page. Every fact report.md gives about
// a failure (each failing case's name, message, dims and replay command, the kernel's case
// counts) must be on the page too, and escaped there.
TEST(ReportWriters, HtmlCarriesEveryFailureFactOfTheMarkdown) {
  const RunReport run = synthetic_run();
  const std::string markdown = report_markdown(run);
  const std::string html = report_html(run);
  const std::string page = visible_text(html);
  int failing_cases = 0;
  for (const KernelReport& kernel : run.kernels) {
    if (kernel.verdict() != "FAIL") continue;
    std::vector<std::string> facts;
    for (const CaseRecord& record : kernel.cases.cases) {
      if (record.status != "failed" && record.status != "crashed") continue;
      ++failing_cases;
      facts.push_back(record.name);
      std::istringstream lines(record.message);
      for (std::string line; std::getline(lines, line);) facts.push_back(line);
      if (record.details.known) {
        facts.push_back(case_reproduce(record));
        for (const auto& [name, size] : record.details.dims) {
          facts.push_back(name + "=" + std::to_string(size));
        }
      }
    }
    const int failed = kernel.cases.count("failed") + kernel.cases.count("crashed");
    facts.push_back(std::to_string(kernel.cases.count("passed")) + "/" + std::to_string(failed) +
                    "/" + std::to_string(kernel.cases.count("skipped")));
    for (const std::string& fact : facts) {
      const std::string plain = normalized_space(fact);
      if (plain.empty()) continue;
      EXPECT_THAT(markdown_plain(markdown), HasSubstr(plain))
          << kernel.full_id() << " in report.md";
      EXPECT_THAT(page, HasSubstr(plain)) << kernel.full_id() << " in report.html";
    }
  }
  EXPECT_EQ(failing_cases, 2) << "the synthetic run's failing kernel fails two cases";
  // Escaped on the page: a message's '<', '&' and quotes never reach the HTML as markup.
  EXPECT_THAT(html, HasSubstr("|y - ref| &lt;= 1e-05 &amp; rel 1e-05"));
  EXPECT_THAT(html, Not(HasSubstr("|y - ref| <= 1e-05")));
}

// Every line of report.md's notes (waivers, domains, task verdicts, failures with their lines,
// problems, baselines) reads the same on the page.
TEST(ReportWriters, HtmlCarriesEveryNoteOfTheMarkdown) {
  const RunReport run = synthetic_run();
  const std::string markdown = report_markdown(run);
  const std::string page = visible_text(report_html(run));
  const std::size_t notes = markdown.find("\n## Notes\n");
  ASSERT_NE(notes, std::string::npos);
  std::istringstream lines(markdown.substr(notes + std::string("\n## Notes\n").size()));
  int checked = 0;
  for (std::string line; std::getline(lines, line);) {
    std::string plain = markdown_plain(line);
    if (plain.rfind("- ", 0) == 0) plain.erase(0, 2);
    if (plain.empty()) continue;
    EXPECT_THAT(page, HasSubstr(plain)) << "report.md's note line is not on the page: " << line;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// A failed kernel is not timed; its task's baselines were timed beside the other kernels of the
// task in the same run. The page shows those medians as borrowed, never "absent".
TEST(ReportWriters, HtmlBorrowsABaselineTimedForAnotherKernelOfTheTask) {
  const std::string html = report_html(synthetic_run());
  const std::size_t row = html.find("<tr><td>wrong</td>");
  ASSERT_NE(row, std::string::npos);
  const std::string wrong = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_THAT(wrong, HasSubstr("3.0000<br><small>from fast's benchmark</small>"));
  EXPECT_THAT(wrong, HasSubstr("this kernel was not timed: its cases did not all pass"));
  EXPECT_THAT(wrong, Not(HasSubstr(">absent<")));
}

// Issue 31: a case's message that starts with GoogleTest's bare "Failed" line (an ADD_FAILURE's)
// read "(failed): Failed" in the notes.
TEST(ReportWriters, NotesNeverSayFailedTwice) {
  RunReport run = synthetic_run();
  run.kernels[2].cases.cases[0].message = "Failed\noutput 'y': 3 of 100 elements are outside";
  for (const std::string& text : {markdown_plain(report_markdown(run)), visible_text(report_html(run))}) {
    EXPECT_THAT(text, Not(HasSubstr("(failed): Failed")));
    EXPECT_THAT(text, HasSubstr("softmax/wrong.correctness_x1 (failed): output 'y': 3 of 100"));
  }
}

// Issue 31: in an rkt eval run folder a kernel is "<file stem>:<kernel>", its cases named by the
// registered id; the page showed both names. Outside replay commands (which must name the case
// as the judge registered it) a kernel has one name.
TEST(ReportWriters, OneNamePerKernel) {
  RunReport run = synthetic_run();
  KernelReport& wrong = run.kernels[2];
  wrong.kernel = "softmax_buggy:wrong";  // as eval_job's report_entry names it
  const std::string html = report_html(run);
  const std::string page =
      visible_text(std::regex_replace(html, std::regex("<code>[^<]*</code>"), ""));
  EXPECT_THAT(page, HasSubstr("softmax/softmax_buggy:wrong.property_dims (failed)"));
  EXPECT_THAT(page, Not(HasSubstr("softmax/wrong")));
  EXPECT_THAT(report_markdown(run), HasSubstr("**softmax/softmax_buggy:wrong.correctness_x1**"));
}

// Issue 31: the benchmark size was only in results.json. It stands beside every speedup, with a
// warning where the calls are too short for a speedup to mean much.
TEST(ReportWriters, ShowsTheBenchmarkSizeBesideEverySpeedup) {
  RunReport run = synthetic_run();
  run.kernels[3].benchmark.dims = "B=37 N=300";  // relu/too_fast: 0.01 ms a call
  const std::string html = report_html(run);
  std::size_t rows = 0;
  for (std::size_t at = html.find("<tr><td>"); at != std::string::npos; at = html.find("<tr><td>", at + 1)) {
    const std::string row = html.substr(at, html.find("</tr>", at) - at);
    if (row.find("x [") == std::string::npos) continue;  // no speedup in this row
    ++rows;
    EXPECT_THAT(row, ::testing::ContainsRegex("at B=[0-9]+ N=[0-9]+")) << row;
    const bool short_calls = row.find("B=37 N=300") != std::string::npos;
    EXPECT_EQ(row.find("short calls") != std::string::npos, short_calls) << row;
  }
  EXPECT_GE(rows, 4u);
  EXPECT_TRUE(short_benchmark_calls(run.kernels[3].benchmark));
  EXPECT_FALSE(short_benchmark_calls(run.kernels[0].benchmark));
  const std::string markdown = report_markdown(run);
  EXPECT_THAT(markdown, HasSubstr("| B=37 N=300 (short calls) |"));
  EXPECT_THAT(markdown, HasSubstr("relu/too_fast benchmark at B=37 N=300: calls of 0.0100 ms (the "
                                  "shorter of its median and eager_fp32's), under 0.1 ms"));
  EXPECT_THAT(markdown, HasSubstr("cuda: 1 kernel of excluded tasks left out"));  // not "1 kernels"
  EXPECT_THAT(markdown, HasSubstr("| B=128 N=4096 |"));
}

// Issue 31: failed kernels were in the plot's legend, not in the plot; on the CPU (memory not
// measured) every kernel sat at x = 1.
TEST(ReportWriters, PlotShowsFailedKernelsAndSaysWhatItsAxesMean) {
  RunReport run = synthetic_run();
  std::string html = report_html(run);
  EXPECT_THAT(html, HasSubstr("<path data-verdict=\"FAIL\""));
  EXPECT_THAT(html, HasSubstr("<title>softmax/wrong (FAIL): not timed</title>"));
  EXPECT_THAT(html, HasSubstr("<title>relu/too_fast (FAIL): 100.00x at B=128 N=4096"));
  EXPECT_THAT(html, HasSubstr("memory efficiency vs strongest baseline"));

  for (KernelReport& kernel : run.kernels) {  // A CPU run: memory not measured.
    kernel.device = "cpu";
    for (BaselineResult& baseline : kernel.benchmark.baselines) baseline.memory_efficiency = 0;
  }
  html = report_html(run);
  EXPECT_THAT(html, HasSubstr("<h2>Speedup against call time</h2>"));
  EXPECT_THAT(html, HasSubstr("kernel median per call, ms (log); memory not measured"));
  EXPECT_THAT(html, Not(HasSubstr("memory efficiency vs strongest baseline")));
  std::set<std::string> xs;
  const std::regex point("<circle data-verdict=\"pass\" cx=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), point); it != std::sregex_iterator(); ++it) {
    xs.insert((*it)[1]);
  }
  EXPECT_GE(xs.size(), 2u) << "the kernels' points spread along x by call time";
}

}  // namespace
}  // namespace rkt
