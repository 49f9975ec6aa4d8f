#include "framework/timing/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace rkt {

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const double position = q * static_cast<double>(samples.size() - 1);
  const std::size_t below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, samples.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return samples[below] + fraction * (samples[above] - samples[below]);
}

std::pair<double, double> median_confidence_interval(std::vector<double> samples) {
  const std::size_t n = samples.size();
  if (n == 0) return {0, 0};
  std::sort(samples.begin(), samples.end());
  const double half_width_ranks = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 / 2 sqrt(n)
  const double center = (static_cast<double>(n) - 1) / 2;
  const auto at_rank = [&](double rank) {
    rank = std::clamp(rank, 0.0, static_cast<double>(n - 1));
    return samples[static_cast<std::size_t>(std::lround(rank))];
  };
  return {at_rank(center - half_width_ranks), at_rank(center + half_width_ranks)};
}

double relative_noise_of_median(std::vector<double> samples) {
  if (samples.size() < 3) return INFINITY;
  const auto [low, high] = median_confidence_interval(samples);
  const double median = quantile(samples, 0.5);
  return median > 0 ? (high - low) / 2 / median : INFINITY;
}

SampleSummary summarize_samples(const std::vector<double>& samples) {
  SampleSummary summary;
  summary.count = static_cast<int>(samples.size());
  if (samples.empty()) return summary;
  summary.median = quantile(samples, 0.5);
  summary.first_quartile = quantile(samples, 0.25);
  summary.third_quartile = quantile(samples, 0.75);
  summary.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
  double squares = 0;
  for (double sample : samples) squares += (sample - summary.mean) * (sample - summary.mean);
  summary.stddev = samples.size() > 1 ? std::sqrt(squares / (samples.size() - 1)) : 0;
  summary.relative_noise = relative_noise_of_median(samples);
  return summary;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& numerator,
                                     const std::vector<double>& denominator, int resamples,
                                     double confidence, std::uint64_t seed) {
  RatioInterval interval;
  if (numerator.empty() || denominator.empty()) return interval;
  interval.ratio = quantile(numerator, 0.5) / quantile(denominator, 0.5);
  std::mt19937_64 generator(seed);
  std::vector<double> ratios;
  std::vector<double> a(numerator.size()), b(denominator.size());
  for (int r = 0; r < resamples; ++r) {
    std::uniform_int_distribution<std::size_t> pick_a(0, numerator.size() - 1);
    std::uniform_int_distribution<std::size_t> pick_b(0, denominator.size() - 1);
    for (double& value : a) value = numerator[pick_a(generator)];
    for (double& value : b) value = denominator[pick_b(generator)];
    ratios.push_back(quantile(a, 0.5) / quantile(b, 0.5));
  }
  const double tail = (1 - confidence) / 2;
  interval.low = quantile(ratios, tail);
  interval.high = quantile(ratios, 1 - tail);
  return interval;
}

double geometric_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double log_sum = 0;
  for (double value : values) log_sum += std::log(value);
  return std::exp(log_sum / values.size());
}

}  // namespace rkt
