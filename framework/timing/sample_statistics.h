// Statistics of timing samples: summaries, the noise of the median, bootstrap speedup intervals.
// Pure functions, tested on synthetic samples.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rkt {

/// What the reports show of a set of timing samples.
struct SampleSummary {
  int count = 0;
  double median = 0;          // [ms]
  double first_quartile = 0;  // [ms]
  double third_quartile = 0;  // [ms]
  double mean = 0;            // [ms]
  double stddev = 0;          // [ms]
  double relative_noise = 0;  // [fraction of the median] see relative_noise_of_median()
  double iqr() const { return third_quartile - first_quartile; }
};

/// The q-quantile (0 <= q <= 1) with linear interpolation between order statistics.
double quantile(std::vector<double> samples, double q);

/// Half the width of the ~95% distribution-free confidence interval of the median (order
/// statistics at ranks n/2 -+ 0.98 sqrt(n)), divided by the median. Large for few samples.
double relative_noise_of_median(std::vector<double> samples);

/// The ~95% distribution-free confidence interval of the median: the order statistics at ranks
/// n/2 -+ 0.98 sqrt(n) (clamped to the samples). {0, 0} when there are no samples.
std::pair<double, double> median_confidence_interval(std::vector<double> samples);

SampleSummary summarize_samples(const std::vector<double>& samples);

/// A ratio of medians with its bootstrap percentile interval.
struct RatioInterval {
  double ratio = 0;  ///< median(numerator) / median(denominator)
  double low = 0;
  double high = 0;
};

/// median(numerator) / median(denominator), with a `confidence` percentile interval from
/// `resamples` bootstrap resamples of both sample sets (deterministic for a seed).
RatioInterval bootstrap_median_ratio(const std::vector<double>& numerator,
                                     const std::vector<double>& denominator, int resamples,
                                     double confidence, std::uint64_t seed);

/// The geometric mean of positive values (0 when empty).
double geometric_mean(const std::vector<double>& values);

}  // namespace rkt
