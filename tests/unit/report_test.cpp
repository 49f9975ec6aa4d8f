// Aggregates and the report writers on a synthetic run, against golden files in tests/golden/.
// RKT_UPDATE_GOLDEN=1 rewrites the golden files (review the diff before committing it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "framework/runs/run_report.h"

namespace rkt {
namespace {

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
  bench.time = summarize_samples({median * 0.99, median, median * 1.01});
  bench.floor_ms = 0.1;
  bench.peak_memory_bytes = 2e6;
  BaselineResult eager;
  eager.name = "eager_fp32";
  eager.available = true;
  eager.time = summarize_samples({baseline_median});
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
                 kernel_report("matmul", "wrong", 1.0, 2.0, "failed")};
  run.kernels[0].supported_dims = {"N % 4 == 0", "N <= 8192"};  // Every report must show them.
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

}  // namespace
}  // namespace rkt
