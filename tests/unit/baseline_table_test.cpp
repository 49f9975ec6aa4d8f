// The baseline table's records survive a round trip (the job resumes from them), and its writers
// show medians with intervals, absent baselines with their reasons, and geomeans per source.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "framework/baselines/compiled_baseline.h"
#include "framework/runs/baseline_table.h"

namespace rkt {
namespace {

// The JSON text with every line break and the indentation after it taken out, so that fields the
// writer (nlohmann/json's dump(2)) puts on lines of their own can be matched as one sequence.
std::string joined_lines(const std::string& json) {
  std::string joined;
  for (std::size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '\n') {
      joined += json[i];
      continue;
    }
    while (i + 1 < json.size() && json[i + 1] == ' ') ++i;
  }
  return joined;
}

using ::testing::HasSubstr;

BaselineTiming timing(const std::string& name, double median) {
  BaselineTiming result;
  result.name = name;
  result.available = true;
  result.time = summarize_samples({median * 0.98, median, median * 1.02});
  result.median_low = median * 0.98;
  result.median_high = median * 1.02;
  result.stop_reason = "noise under 1%";
  result.peak_memory_bytes = 3e6;
  return result;
}

BaselineRow row(const std::string& task, double fp32, double tf32, double compiled) {
  BaselineRow result;
  result.task = task;
  result.device = "cuda";
  result.dims = "B=4 N=8";
  result.floor_ms = 0.01;
  result.floor_tf32_ms = 0.005;
  result.baselines = {timing("eager_fp32", fp32), timing("eager_tf32", tf32)};
  result.tf32_speedup = {fp32 / tf32, fp32 / tf32 * 0.9, fp32 / tf32 * 1.1};
  if (compiled > 0) {
    result.baselines.push_back(timing("compiled", compiled));
    result.compiled_speedup = {fp32 / compiled, 0, 0};
  } else {
    BaselineTiming absent;
    absent.name = "compiled";
    absent.absent_reason = "no AOTInductor package at /x.pt2\n(second line)";
    result.baselines.push_back(absent);
  }
  return result;
}

TEST(BaselineTable, RecordsSurviveARoundTrip) {
  const BaselineRow original = row("kb_l1_001", 2.0, 0.5, 0);
  const BaselineRow copy = deserialize_baseline_row(serialize(original));
  EXPECT_EQ(copy.task, "kb_l1_001");
  EXPECT_EQ(copy.dims, "B=4 N=8");
  ASSERT_EQ(copy.baselines.size(), 3u);
  EXPECT_DOUBLE_EQ(copy.baselines[0].time.median, 2.0);
  EXPECT_DOUBLE_EQ(copy.baselines[0].median_high, 2.04);
  EXPECT_EQ(copy.baselines[0].stop_reason, "noise under 1%");
  EXPECT_FALSE(copy.baselines[2].available);
  EXPECT_EQ(copy.baselines[2].absent_reason, "no AOTInductor package at /x.pt2\n(second line)");
  EXPECT_DOUBLE_EQ(copy.tf32_speedup.ratio, 4.0);
  EXPECT_DOUBLE_EQ(copy.floor_tf32_ms, 0.005);
}

TEST(BaselineTable, RefusesAMalformedRecord) {
  EXPECT_THROW(deserialize_baseline_row("task=x\nno equals sign\n"), std::invalid_argument);
  EXPECT_THROW(deserialize_baseline_row("device=cuda\n"), std::invalid_argument);
  EXPECT_THROW(deserialize_baseline_row("task=x\nfloor_ms=fast\n"), std::invalid_argument);
}

TEST(BaselineTable, WritersShowIntervalsReasonsAndGeomeansPerSource) {
  BaselineTable table;
  table.started_utc = "2026-11-30T12:00:00Z";
  table.device = "cuda";
  table.peaks.device_name = "Synthetic GPU";
  table.rows = {row("kb_l1_001", 2.0, 0.5, 1.0), row("kb_l1_002", 1.0, 1.0, 2.0),
                row("softmax", 1.0, 1.0, 0)};
  table.finished = true;
  const std::string json = joined_lines(baseline_table_json(table));
  EXPECT_THAT(json, HasSubstr("\"schema\": \"rkt-baselines/1\""));
  EXPECT_THAT(json, HasSubstr("\"task\": \"kb_l1_001\",\"source\": \"kb_l1\""));
  EXPECT_THAT(json, HasSubstr("\"median_ms\": 2.0,\"median_low_ms\": 1.96,\"median_high_ms\": 2.04"));
  // Level 1: TF32 speedups 4 and 1 -> 2; compiled speedups 2 and 0.5 -> 1.
  EXPECT_THAT(json, HasSubstr("{\"source\": \"kb_l1\",\"tasks\": 2,\"measured\": 2,"
                              "\"compiled_available\": 2,\"geomean_tf32_speedup\": 2.0,"
                              "\"geomean_compiled_speedup\": 1.0}"));
  EXPECT_THAT(json, HasSubstr("\"absent_reason\": \"no AOTInductor package at /x.pt2\\n"));
  const std::string markdown = baseline_table_markdown(table);
  EXPECT_THAT(markdown, HasSubstr("| kb_l1_001 | B=4 N=8 | 2.0000 [1.9600, 2.0400] | 0.5000 "
                                  "[0.4900, 0.5100] | 1.0000 [0.9800, 1.0200] | 4.00x [3.60, "
                                  "4.40] |"));
  EXPECT_THAT(markdown, HasSubstr("- softmax: compiled absent: no AOTInductor package"));
  EXPECT_THAT(markdown, HasSubstr("| kb_l1 | 2 | 2 | 2.000 | 2 | 1.000 |"));
  const std::string html = baseline_table_html(table);
  EXPECT_THAT(html, HasSubstr("<td>kb_l1_002</td>"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script")));
}

TEST(CompiledBaselineCache, PackagesAreKeyedByTorchVersionAndGpuArchitecture) {
  // A package compiled for one GPU architecture is never served to another: the device part of
  // its file name carries the architecture, and where no GPU is visible a key no build makes.
  EXPECT_EQ(compiled_device_key(Device::cpu, ""), "cpu");
  EXPECT_EQ(compiled_device_key(Device::cpu, "90"), "cpu");
  EXPECT_EQ(compiled_device_key(Device::cuda, "90"), "cuda-sm90");
  EXPECT_EQ(compiled_device_key(Device::cuda, "80"), "cuda-sm80");
  EXPECT_EQ(compiled_device_key(Device::cuda, ""), "cuda-sm-none");
  EXPECT_THAT(compiled_cache_directory(), HasSubstr("/torch-"));
  const TaskSpec* relu = find_task("relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_THAT(compiled_package_path(*relu, Device::cpu), HasSubstr("/relu.cpu."));
  EXPECT_THAT(compiled_package_path(*relu, Device::cuda), HasSubstr("/relu.cuda-sm"));
}

TEST(MedianConfidenceInterval, BracketsTheMedianWithOrderStatistics) {
  std::vector<double> samples;
  for (int i = 1; i <= 100; ++i) samples.push_back(i);
  const auto [low, high] = median_confidence_interval(samples);
  // Ranks 49.5 -+ 9.8 -> 40 and 59 (0-based), values 41 and 60.
  EXPECT_DOUBLE_EQ(low, 41);
  EXPECT_DOUBLE_EQ(high, 60);
  EXPECT_EQ(median_confidence_interval({}), std::make_pair(0.0, 0.0));
}

}  // namespace
}  // namespace rkt
