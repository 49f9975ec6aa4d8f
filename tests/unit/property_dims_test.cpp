// Property-test dims, seeds and the four input scalings.
#include <gtest/gtest.h>

#include "framework/cases/property_cases.h"
#include "framework/dims/dim_resolution.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/input_scaling.h"
#include "framework/inputs/seeding.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

const TaskSpec& task(const char* id) {
  const TaskSpec* found = find_task(id);
  if (found == nullptr) throw std::runtime_error(std::string("no task ") + id);
  return *found;
}

TEST(PropertyDims, RangeOverEachDomainDimUpToTwiceTheTestSize) {
  const TaskSpec& matmul = task("matmul");
  const auto ranges = property_dim_ranges(matmul, Device::cpu);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges.at("M").min, 1);
  EXPECT_EQ(ranges.at("M").max, defaults::kPropertyMaxDimFactor * matmul.small_dims().at("M"));
  EXPECT_EQ(ranges.at("K").max, defaults::kPropertyMaxDimFactor * matmul.small_dims().at("K"));
  EXPECT_EQ(ranges.at("K").test_size, matmul.small_dims().at("K"));
  // On CUDA the range is around the benchmark size, capped by the domain.
  EXPECT_EQ(property_dim_ranges(matmul, Device::cuda).at("K").max, 8192);
}

TEST(PropertyDims, StayWithinTheInputBudget) {
  const TaskSpec& relu = task("relu");
  // The largest dims the CUDA domain allows; the budget must cut them down.
  const auto ranges = property_dim_ranges(relu, Device::cuda);
  Dims dims = relu.default_dims();
  for (const auto& [name, range] : ranges) dims[name] = range.max;
  dims = fit_to_input_budget(relu, dims, defaults::kPropertySmallInputBudgetCuda, ranges);
  EXPECT_LE(dims.at("B") * dims.at("N") * 4, defaults::kPropertySmallInputBudgetCuda);
  EXPECT_GE(dims.at("B"), 1);
}

TEST(PropertyDims, BudgetKeepsALargeDrawWhenTheOthersCanGiveWay) {
  // A row longer than 1.5x the benchmark size survives; the row count gives way.
  const TaskSpec& relu = task("relu");
  const auto ranges = property_dim_ranges(relu, Device::cuda);
  const Dims dims = fit_to_input_budget(relu, {{"B", 8000}, {"N", 16000}},
                                        defaults::kPropertySmallInputBudgetCuda, ranges);
  EXPECT_EQ(dims.at("N"), 16000);
  EXPECT_LE(dims.at("B") * 16000 * 4, defaults::kPropertySmallInputBudgetCuda);
}

TEST(PropertyPhases, CudaRunsManySmallTrialsThenAFewAtFullSize) {
  const auto cuda = property_phases(PropertyKind::shapes, Device::cuda);
  ASSERT_EQ(cuda.size(), 3u);
  EXPECT_EQ(cuda[0].trials, defaults::kPropertySmallTrialsCuda);
  EXPECT_EQ(cuda[0].input_budget, defaults::kPropertySmallInputBudgetCuda);
  EXPECT_GT(cuda[0].time_budget_seconds, 0);
  EXPECT_EQ(cuda[1].tier, DimTier::full_size);
  EXPECT_EQ(cuda[1].trials, defaults::kPropertyFullSizeTrialsCuda);
  EXPECT_EQ(cuda[2].tier, DimTier::whole_domain);
  const auto cpu = property_phases(PropertyKind::shapes, Device::cpu);
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_EQ(cpu[0].trials, defaults::kPropertyTrialsCpu);
  EXPECT_EQ(cpu[1].tier, DimTier::whole_domain);
  EXPECT_EQ(cpu[1].input_budget, defaults::kPropertyWholeDomainInputBudgetCpu);
  // Whole-domain ranges are the task's domain, uncapped.
  const TaskSpec& softmax = task("softmax");
  EXPECT_EQ(property_dim_ranges(softmax, Device::cpu, {}, DimTier::whole_domain).at("N").max,
            softmax.domains().at("N").max);
}

TEST(Seeds, AreStableForAKeyAndDifferAcrossKeys) {
  EXPECT_EQ(case_seed("softmax/x3"), case_seed("softmax/x3"));
  EXPECT_NE(case_seed("softmax/x3"), case_seed("softmax/x1"));
  EXPECT_LT(case_seed("softmax/x3"), 1ull << 63);
}

TEST(InputGeneration, IsReproducibleFromTheSeed) {
  const TaskSpec& layernorm = task("layernorm");
  const auto first = generate_inputs(layernorm, layernorm.small_dims(), 42);
  const auto again = generate_inputs(layernorm, layernorm.small_dims(), 42);
  const auto other = generate_inputs(layernorm, layernorm.small_dims(), 43);
  ASSERT_EQ(first.size(), 3u);
  EXPECT_TRUE(first[0].equal(again[0]));
  EXPECT_FALSE(first[0].equal(other[0]));
  EXPECT_EQ(first[0].sizes(), (std::vector<std::int64_t>{37, 300}));
}

TEST(InputScaling, ScalesFloatingInputsAndNeverIndices) {
  const TaskSpec& cross_entropy = task("cross_entropy");
  auto inputs = generate_inputs(cross_entropy, cross_entropy.small_dims(), 7);
  const at::Tensor logits = inputs[0].clone(), targets = inputs[1].clone();
  scale_floating_inputs(cross_entropy, inputs, -1.0);
  EXPECT_TRUE(inputs[0].equal(-logits));
  EXPECT_TRUE(inputs[1].equal(targets));
  EXPECT_EQ(inputs[1].scalar_type(), at::kLong);
  EXPECT_LT(targets.max().item<std::int64_t>(), cross_entropy.small_dims().at("C"));
}

TEST(InputScaling, AreKernelBenchVerifiedsFour) {
  std::vector<double> scales;
  for (const InputScaling& scaling : standard_scalings()) scales.push_back(scaling.scale);
  EXPECT_EQ(scales, (std::vector<double>{1.0, 3.0, 0.01, -1.0}));
}

TEST(DimResolution, ResolvesNamesAndLiterals) {
  EXPECT_EQ(resolve_dims({"Cout", "Cin", "3", "3"}, {{"Cin", 4}, {"Cout", 8}}),
            (std::vector<std::int64_t>{8, 4, 3, 3}));
  EXPECT_EQ(product_of_dims("Cin,3,3", {{"Cin", 4}}), 36);
  EXPECT_THROW(resolve_dims({"Q"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace rkt
