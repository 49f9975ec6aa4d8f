// The timing statistics, the stopping rule, bootstrap intervals, the physical floor and the
// benchmark record format, on synthetic samples (no timing, no device).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "framework/benchmarks/benchmark_record.h"
#include "framework/timing/device_peaks.h"
#include "framework/timing/sample_statistics.h"
#include "framework/timing/timing_engine.h"

namespace rkt {
namespace {

std::vector<double> normal_samples(int n, double mean, double stddev, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<double> normal(mean, stddev);
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) samples.push_back(normal(generator));
  return samples;
}

TEST(Quantile, InterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.9), 7);
}

TEST(SummarizeSamples, ReportsMedianQuartilesMeanAndCount) {
  const SampleSummary summary = summarize_samples({1, 2, 3, 4, 100});
  EXPECT_EQ(summary.count, 5);
  EXPECT_DOUBLE_EQ(summary.median, 3);
  EXPECT_DOUBLE_EQ(summary.first_quartile, 2);
  EXPECT_DOUBLE_EQ(summary.third_quartile, 4);
  EXPECT_DOUBLE_EQ(summary.iqr(), 2);
  EXPECT_DOUBLE_EQ(summary.mean, 22);
}

TEST(RelativeNoiseOfMedian, ShrinksAsSamplesGrow) {
  const double few = relative_noise_of_median(normal_samples(20, 1.0, 0.05, 1));
  const double many = relative_noise_of_median(normal_samples(2000, 1.0, 0.05, 1));
  EXPECT_GT(few, many);
  // For normal samples the median's standard error is 1.2533 sigma / sqrt(n): the half-width of
  // a 95% interval is about 1.96 x that.
  EXPECT_NEAR(many, 1.96 * 1.2533 * 0.05 / std::sqrt(2000.0), 0.0015);
  EXPECT_TRUE(std::isinf(relative_noise_of_median({1, 2})));
}

TEST(StoppingRule, WaitsForTheMinimumThenStopsOnNoise) {
  TimingOptions options;
  options.min_samples = 10;
  options.max_samples = 1000;
  options.target_noise = 0.01;
  options.budget_milliseconds = 1e9;
  options.wall_limit_seconds = 1e9;
  std::string reason;
  EXPECT_FALSE(sampling_complete(std::vector<double>(5, 1.0), 0, options, reason));
  EXPECT_TRUE(sampling_complete(std::vector<double>(10, 1.0), 0, options, reason));
  EXPECT_THAT(reason, ::testing::HasSubstr("noise"));
  EXPECT_FALSE(sampling_complete(normal_samples(10, 1.0, 0.3, 2), 0, options, reason));
}

TEST(StoppingRule, StopsOnTheBudgetTheWallClockOrTheMaximum) {
  TimingOptions options;
  options.min_samples = 10;
  options.max_samples = 50;
  options.target_noise = 0;  // never reached
  options.budget_milliseconds = 100;
  options.wall_limit_seconds = 5;
  std::string reason;
  const std::vector<double> noisy = normal_samples(20, 1.0, 0.3, 3);  // ~20 ms of work
  EXPECT_FALSE(sampling_complete(noisy, 1, options, reason));
  EXPECT_TRUE(sampling_complete(noisy, 6, options, reason));
  EXPECT_THAT(reason, ::testing::HasSubstr("wall-clock"));
  EXPECT_TRUE(sampling_complete(normal_samples(20, 10.0, 1, 3), 0, options, reason));
  EXPECT_THAT(reason, ::testing::HasSubstr("budget"));
  EXPECT_TRUE(sampling_complete(normal_samples(50, 1.0, 0.3, 3), 0, options, reason));
  EXPECT_THAT(reason, ::testing::HasSubstr("max samples"));
}

TEST(BootstrapMedianRatio, CoversTheTrueRatioAndIsDeterministic) {
  const std::vector<double> baseline = normal_samples(200, 2.0, 0.1, 4);
  const std::vector<double> kernel = normal_samples(200, 1.0, 0.05, 5);
  const RatioInterval interval = bootstrap_median_ratio(baseline, kernel, 2000, 0.95, 7);
  EXPECT_NEAR(interval.ratio, 2.0, 0.05);
  EXPECT_LT(interval.low, interval.ratio);
  EXPECT_GT(interval.high, interval.ratio);
  EXPECT_GT(interval.low, 1.9);
  EXPECT_LT(interval.high, 2.1);
  const RatioInterval again = bootstrap_median_ratio(baseline, kernel, 2000, 0.95, 7);
  EXPECT_EQ(interval.low, again.low);
}

TEST(BootstrapMedianRatio, AnIndistinguishableKernelIsNotFaster) {
  const RatioInterval interval = bootstrap_median_ratio(normal_samples(30, 1.0, 0.2, 8),
                                                        normal_samples(30, 1.0, 0.2, 9), 2000,
                                                        0.95, 10);
  EXPECT_LT(interval.low, 1.0);
  EXPECT_GT(interval.high, 1.0);
}

TEST(GeometricMean, OfRatios) {
  EXPECT_DOUBLE_EQ(geometric_mean({2, 8}), 4);
  EXPECT_DOUBLE_EQ(geometric_mean({}), 0);
}

TEST(PhysicalFloor, IsTheSlowerOfMemoryAndCompute) {
  DevicePeaks peaks;
  peaks.copy_bytes_per_second = 4e12;
  peaks.fp32_flops_per_second = 50e12;
  peaks.tf32_flops_per_second = 400e12;
  // 4 GB at 4 TB/s: 1 ms; 100 GFLOP at 50 TFLOP/s: 2 ms.
  EXPECT_DOUBLE_EQ(physical_floor_ms(peaks, Precision::fp32, 4e9, 100e9), 2.0);
  // With TF32 the compute floor drops to 0.25 ms and memory (1 ms) bounds it.
  EXPECT_DOUBLE_EQ(physical_floor_ms(peaks, Precision::tf32, 4e9, 100e9), 1.0);
}

TEST(BenchmarkRecord, RoundTripsThroughItsTextForm) {
  BenchmarkRecord record;
  record.task = "softmax";
  record.kernel = "cuda_rowwise";
  record.measured = true;
  record.problem = "line one\nline two = with equals";
  record.time = summarize_samples({1.0, 1.1, 0.9});
  record.impossible = true;
  BaselineResult baseline;
  baseline.name = "eager_fp32";
  baseline.available = true;
  baseline.speedup = {1.5, 1.4, 1.6};
  record.baselines.push_back(baseline);
  record.strongest_baseline = "eager_fp32";
  record.speedup_vs_strongest = baseline.speedup;
  const BenchmarkRecord back = deserialize_benchmark_record(serialize(record));
  EXPECT_EQ(back.task, "softmax");
  EXPECT_EQ(back.problem, record.problem);
  EXPECT_DOUBLE_EQ(back.time.median, 1.0);
  EXPECT_TRUE(back.impossible);
  ASSERT_EQ(back.baselines.size(), 1u);
  EXPECT_DOUBLE_EQ(back.baselines[0].speedup.low, 1.4);
  EXPECT_FALSE(back.faster_than_strongest()) << "an impossible time is never faster";
  EXPECT_THROW(deserialize_benchmark_record("no equals sign here\n"), std::invalid_argument);
}

TEST(BenchmarkRecord, IsFasterOnlyWhenTheWholeIntervalIsAboveOne) {
  BenchmarkRecord record;
  record.measured = true;
  record.strongest_baseline = "eager_tf32";
  record.speedup_vs_strongest = {1.3, 0.98, 1.6};
  EXPECT_FALSE(record.faster_than_strongest());
  record.speedup_vs_strongest = {1.3, 1.02, 1.6};
  EXPECT_TRUE(record.faster_than_strongest());
}

}  // namespace
}  // namespace rkt
