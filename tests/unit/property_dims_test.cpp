// Property-test dims, seeds and the four input scalings.
#include <gtest/gtest.h>

#include "framework/dim_resolution.h"
#include "framework/input_generation.h"
#include "framework/input_scaling.h"
#include "framework/property_cases.h"
#include "framework/seeding.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

const TaskSpec& task(const char* id) {
  const TaskSpec* found = find_task(id);
  if (found == nullptr) throw std::runtime_error(std::string("no task ") + id);
  return *found;
}

TEST(PropertyDims, DrawEachDomainDimUpToTwiceTheTestSize) {
  const TaskSpec& matmul = task("matmul");
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> asked;
  bounded_property_dims(matmul, Device::cpu,
                        [&](const std::string& name, std::int64_t min, std::int64_t max) {
                          asked[name] = {min, max};
                          return min;
                        });
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(asked["M"].first, 1);
  EXPECT_EQ(asked["M"].second, defaults::kPropertyMaxDimFactor * matmul.small_dims().at("M"));
  EXPECT_EQ(asked["K"].second, defaults::kPropertyMaxDimFactor * matmul.small_dims().at("K"));
}

TEST(PropertyDims, StayWithinTheInputBudget) {
  const TaskSpec& relu = task("relu");
  // Ask for the largest dims the CUDA domain allows; the budget must cut them down.
  const Dims dims = bounded_property_dims(
      relu, Device::cuda, [](const std::string&, std::int64_t, std::int64_t max) { return max; });
  const std::int64_t bytes = dims.at("B") * dims.at("N") * 4;
  EXPECT_LE(bytes, defaults::kPropertyInputBudgetCuda);
  EXPECT_GE(dims.at("B"), 1);
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
