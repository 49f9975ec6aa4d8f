// Value families: each transform does what it says, only to data inputs, and every declared task
// exists.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <iostream>

#include "framework/cases/value_families.h"
#include "framework/inputs/input_generation.h"
#include "framework/runtime/device_support.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::vector<at::Tensor> layernorm_inputs() {
  const TaskSpec& layernorm = *find_task("layernorm");
  return generate_inputs(layernorm, layernorm.small_dims(), 5);
}

TEST(ValueFamilies, OffsetShiftsTheDataFarFromZeroAndLeavesWeightsAlone) {
  const TaskSpec& layernorm = *find_task("layernorm");
  auto inputs = layernorm_inputs();
  const auto before = layernorm_inputs();
  apply_value_family(layernorm, inputs, ValueFamily::offset, 1);
  const double mean = inputs[0].mean().item<double>(), std = inputs[0].std().item<double>();
  EXPECT_GT(mean / std, 0.9 * defaults::kValueOffsetStds);
  EXPECT_TRUE(inputs[1].equal(before[1]));  // weight
  EXPECT_TRUE(inputs[2].equal(before[2]));  // bias
}

TEST(ValueFamilies, TiesRepeatValuesAndMixedMagnitudesSpanDecades) {
  const TaskSpec& layernorm = *find_task("layernorm");
  auto tied = layernorm_inputs();
  apply_value_family(layernorm, tied, ValueFamily::ties, 1);
  const auto unique = std::get<0>(at::_unique(tied[0].flatten()));
  EXPECT_LT(unique.numel(), tied[0].numel() / 100);  // 11100 values on a grid of about 40
  auto mixed = layernorm_inputs();
  apply_value_family(layernorm, mixed, ValueFamily::mixed_magnitudes, 1);
  const at::Tensor magnitudes = mixed[0].abs();
  EXPECT_GT(magnitudes.max().item<double>() / magnitudes.median().item<double>(), 1e3);
}

TEST(ValueFamilies, SignedZerosAndDenormalsAppearAtTheirShare) {
  const TaskSpec& relu = *find_task("relu");
  auto inputs = generate_inputs(relu, relu.small_dims(), 3);
  apply_value_family(relu, inputs, ValueFamily::signed_zeros_denormals, 2);
  const at::Tensor x = inputs[0];
  const double special = (x.abs() < 1e-37).to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(special, defaults::kValueSpecialShare, 0.03);
  EXPECT_TRUE((at::signbit(x) & (x == 0)).any().item<bool>());            // -0
  EXPECT_TRUE(((x != 0) & (x.abs() < 1.17e-38)).any().item<bool>());      // denormals
}

TEST(ValueFamilies, EveryDeclaringTaskIsRegisteredAndTheLayerNormsDeclareOffset) {
  for (const std::string& id : tasks_with_value_families()) {
    EXPECT_NE(find_task(id), nullptr) << "value families declared for unknown task '" << id << "'";
  }
  const auto& layernorm = value_families_of("layernorm");
  EXPECT_NE(std::find(layernorm.begin(), layernorm.end(), ValueFamily::offset), layernorm.end());
  const auto& rkb = value_families_of("rkb_layernorm");
  EXPECT_NE(std::find(rkb.begin(), rkb.end(), ValueFamily::offset), rkb.end());
}

// The transforms run on the kernel's device; a GPU case must judge the values a CPU case would.
// The random parameters come from one CPU generator either way; the float64 arithmetic (pow, the
// std's reduction order) may differ in its last bit between devices, which rounding to float32
// almost always hides: counted and bounded, as the normal law's draw is (counter_random_test.cpp).
TEST(ValueFamilies, AGpuTransformsToTheCpuValues) {
  if (!device_available(Device::cuda)) {
    GTEST_SKIP() << "needs a CUDA device: " << device_unavailable_reason(Device::cuda);
  }
  const TaskSpec& layernorm = *find_task("layernorm");
  for (const ValueFamily family : all_value_families()) {
    auto on_cpu = generate_inputs(layernorm, layernorm.small_dims(), 7);
    auto on_gpu = generate_inputs(layernorm, layernorm.small_dims(), 7, c10::Device(c10::kCUDA));
    apply_value_family(layernorm, on_cpu, family, 9);
    apply_value_family(layernorm, on_gpu, family, 9);
    ASSERT_TRUE(on_gpu[0].is_cuda()) << to_string(family) << ": the transform left the device";
    const at::Tensor gpu_values = on_gpu[0].cpu();
    const std::int64_t differing = gpu_values.ne(on_cpu[0]).sum().item<std::int64_t>();
    const double largest_relative =
        ((gpu_values.to(at::kDouble) - on_cpu[0].to(at::kDouble)).abs() /
         on_cpu[0].to(at::kDouble).abs().clamp_min(1e-30))
            .max()
            .item<double>();
    std::cout << "[ value family " << to_string(family) << " ] " << differing << " of "
              << gpu_values.numel() << " elements differ between the GPU and the CPU (largest relative "
              << largest_relative << ")\n";
    EXPECT_LE(differing, gpu_values.numel() / 1000) << to_string(family);
    EXPECT_LE(largest_relative, 1e-6) << to_string(family);
  }
}

}  // namespace
}  // namespace rkt
