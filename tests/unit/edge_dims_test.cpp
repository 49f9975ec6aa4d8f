// Edge-seeking dims: what the mixture draws, that it shrinks to the smallest value, and that a
// property built on it catches an edge bug and reports the shrunk case.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "framework/cases/property_cases.h"
#include "framework/dims/edge_dims.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

bool contains(const std::vector<std::int64_t>& values, std::int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

TEST(EdgeDims, EdgeValuesAreTheSmallestGranularitiesPrimesAndTheTop) {
  const DimRange range{1, 600, 300};
  const std::vector<std::int64_t> edges = edge_values(range);
  for (std::int64_t v : {1, 2, 3, 3, 4, 5, 31, 32, 33, 127, 129, 255, 256, 257, 299, 300, 301, 511,
                         512, 513, 509, 521, 600}) {
    EXPECT_TRUE(contains(edges, v)) << v;
  }
  EXPECT_FALSE(contains(edges, 1023));  // Outside the range.
  EXPECT_TRUE(std::is_sorted(edges.begin(), edges.end()));
  EXPECT_TRUE(contains(edge_primes(range), 257));
  EXPECT_FALSE(contains(edge_primes(range), 255));
}

TEST(EdgeDims, LargeMeansAboveOneAndAHalfTimesTheTestSize) {
  EXPECT_EQ(large_dim_floor({1, 600, 300}), 451);
  // Out of reach (the domain stops below 1.5x): the upper half of the range instead.
  EXPECT_EQ(large_dim_floor({1, 64, 224}), 32);
}

TEST(EdgeDims, TheMixtureVisitsEveryEdgeClassAtItsShare) {
  const DimRange range{1, 16384, 8192};
  std::mt19937_64 engine(2026);
  const RandomBits bits = [&engine] { return engine(); };
  const int draws = 20000;
  int ones = 0, large = 0, odd = 0, off_32 = 0, below_512 = 0;
  for (int i = 0; i < draws; ++i) {
    const std::int64_t v = draw_dim(range, DimTier::edges, bits);
    ASSERT_GE(v, range.min);
    ASSERT_LE(v, range.max);
    ones += v == 1;
    large += 2 * v > 3 * range.test_size;
    odd += v % 2;
    off_32 += v % 32 != 0;
    below_512 += v < 512;
  }
  // Each share with a margin of several standard deviations (about 0.003 at 20000 draws).
  EXPECT_NEAR(ones / double(draws), defaults::kEdgeDimOneShare, 0.02);
  EXPECT_GT(large / double(draws), defaults::kEdgeDimLargeShare - 0.02);
  EXPECT_GT(odd / double(draws), 0.4);
  EXPECT_GT(off_32 / double(draws), 0.6);
  EXPECT_GT(below_512 / double(draws), 0.35);
}

TEST(EdgeDims, FullSizeTrialsStayAtOrAboveTheTestSize) {
  const DimRange range{1, 16384, 8192};
  std::mt19937_64 engine(7);
  const RandomBits bits = [&engine] { return engine(); };
  int large = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t v = draw_dim(range, DimTier::full_size, bits);
    EXPECT_GE(v, range.test_size - 1);
    EXPECT_LE(v, range.max);
    large += 2 * v > 3 * range.test_size;
  }
  EXPECT_GT(large, 2000 * defaults::kFullSizeDimLargeShare * 0.9);
}

TEST(EdgeDims, TheGeneratorIgnoresRapidchecksSizeAndShrinksToTheMinimum) {
  const DimRange range{1, 600, 300};
  // At size 0 (rapidcheck's first trial) the generator still reaches large values.
  std::int64_t largest = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    largest = std::max(largest, dim_generator(range, DimTier::edges)(rc::Random(seed), 0).value());
  }
  EXPECT_GT(largest, 450);
  // A value above the minimum shrinks first to the minimum.
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const auto drawn = dim_generator(range, DimTier::edges)(rc::Random(seed), 0);
    if (drawn.value() == range.min) continue;
    const auto first = drawn.shrinks().next();
    ASSERT_TRUE(static_cast<bool>(first));
    EXPECT_EQ(first->value(), range.min);
  }
}

TEST(EdgeDims, APropertyCatchesAnEdgeBugAndReportsTheShrunkCase) {
  const TaskSpec* sum_dim = find_task("sum_dim");
  ASSERT_NE(sum_dim, nullptr);
  PropertyOptions options;
  options.id = "sum_dim/predicate/property_shapes";
  options.seed = 11;
  // "Wrong" whenever N is not a multiple of 32 and above 40: the smallest such N is 41.
  const CaseOutcome outcome = run_property_trials(
      *sum_dim, PropertyKind::shapes, options, [](const TaskSpec&, const CaseInputs& inputs) {
        const std::int64_t n = inputs.dims.at("N");
        return n % 32 != 0 && n > 40 ? CaseOutcome{CaseStatus::failed, "N=" + std::to_string(n)}
                                     : CaseOutcome{CaseStatus::passed, ""};
      });
  ASSERT_EQ(outcome.status, CaseStatus::failed) << outcome.message;
  ASSERT_TRUE(outcome.details.known);
  EXPECT_EQ(outcome.details.dims.at("N"), 41) << outcome.message;
  EXPECT_NE(outcome.details.reproduce.find("RC_PARAMS=\""), std::string::npos);
  EXPECT_NE(outcome.message.find("reproduce="), std::string::npos);
}

TEST(EdgeDims, TrialsOfAPropertyDrawIndependently) {
  // The detection rates in docs/property_detection.md rest on each trial drawing afresh: over
  // 100 seeds x 40 trials, N = 1 comes up at its share, and seeds without it are as rare as
  // (1 - share)^40 says.
  const TaskSpec* softmax = find_task("softmax");
  ASSERT_NE(softmax, nullptr);
  int trials = 0, ones = 0, seeds_without_one = 0;
  std::set<std::int64_t> distinct;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    PropertyOptions options;
    options.id = "softmax/draws/property_shapes";
    options.seed = seed;
    int ones_here = 0, calls = 0;
    run_property_trials(*softmax, PropertyKind::shapes, options,
                        [&](const TaskSpec&, const CaseInputs& inputs) {
                          // The edge phase only; the whole-domain trials follow it.
                          if (calls++ >= defaults::kPropertyTrialsCpu) return CaseOutcome{CaseStatus::passed, ""};
                          ++trials;
                          ones_here += inputs.dims.at("N") == 1;
                          distinct.insert(inputs.dims.at("N"));
                          return CaseOutcome{CaseStatus::passed, ""};
                        });
    ones += ones_here;
    seeds_without_one += ones_here == 0;
  }
  EXPECT_EQ(trials, 100 * defaults::kPropertyTrialsCpu);
  EXPECT_NEAR(ones / double(trials), defaults::kEdgeDimOneShare, 0.03);
  EXPECT_LE(seeds_without_one, 2);
  EXPECT_GT(distinct.size(), 150u);
  std::cout << "N = 1 in " << ones << " of " << trials << " trials; seeds without: "
            << seeds_without_one << "; distinct N: " << distinct.size() << "\n";
}

TEST(EdgeDims, APassingPropertySaysHowManyTrialsRan) {
  const TaskSpec* sum_dim = find_task("sum_dim");
  ASSERT_NE(sum_dim, nullptr);
  PropertyOptions options;
  options.id = "sum_dim/always/property_shapes";
  options.device = Device::cuda;  // Generator only: no kernel runs, so no GPU is needed.
  options.seed = 3;
  int trials = 0;
  const CaseOutcome outcome = run_property_trials(
      *sum_dim, PropertyKind::shapes, options, [&trials](const TaskSpec&, const CaseInputs&) {
        ++trials;
        return CaseOutcome{CaseStatus::passed, ""};
      });
  EXPECT_EQ(outcome.status, CaseStatus::passed);
  const int whole_domain = defaults::kPropertyWholeDomainTrialsPerDim * static_cast<int>(sum_dim->domains().size());
  EXPECT_EQ(trials, defaults::kPropertySmallTrialsCuda + defaults::kPropertyFullSizeTrialsCuda + whole_domain);
  EXPECT_NE(outcome.message.find("full_size: 3 trials passed"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("whole_domain: " + std::to_string(whole_domain) + " trials passed"),
            std::string::npos)
      << outcome.message;
}

}  // namespace
}  // namespace rkt

namespace rkt {
namespace {

TEST(EdgeDims, WholeDomainTrialsTakeOneDimToTheDomainsFarEdge) {
  const TaskSpec* softmax = find_task("softmax");
  ASSERT_NE(softmax, nullptr);
  const std::int64_t n_max = softmax->domains().at("N").max;
  int trials = 0, at_max = 0, test_size_dims = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    PropertyOptions options;
    options.id = "softmax/whole_domain/property_shapes";
    options.seed = seed;
    int calls = 0;
    run_property_trials(*softmax, PropertyKind::shapes, options,
                        [&](const TaskSpec&, const CaseInputs& inputs) {
                          if (calls++ < defaults::kPropertyTrialsCpu) return CaseOutcome{CaseStatus::passed, ""};
                          ++trials;
                          at_max += inputs.dims.at("N") == n_max;
                          test_size_dims += inputs.dims.at("N") <= softmax->small_dims().at("N");
                          EXPECT_LE(input_bytes(*softmax, inputs.dims), defaults::kPropertyWholeDomainInputBudgetCpu);
                          return CaseOutcome{CaseStatus::passed, ""};
                        });
  }
  EXPECT_EQ(trials, 50 * defaults::kPropertyWholeDomainTrialsPerDim * 2);
  // N is the reaching dim in half the trials, and then at the domain's maximum in 85% of them.
  EXPECT_NEAR(at_max / double(trials), 0.5 * defaults::kWholeDomainMaxShare, 0.08);
  EXPECT_GT(test_size_dims, trials / 4);  // B reached instead; N stayed at the test size
}

}  // namespace
}  // namespace rkt
