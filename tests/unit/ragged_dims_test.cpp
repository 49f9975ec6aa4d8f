// Ragged dims (framework/dims/ragged_dims.h): the sanitizer cases' shapes, where a tail that
// reads past the end does so (tests/adversaries/bounds_cheats.cu: relu/cuda_float4_tail_overread).
#include <gtest/gtest.h>

#include <cstdint>

#include "framework/dims/kernel_domain.h"
#include "framework/dims/ragged_dims.h"
#include "rkt/task.h"

namespace rkt {
namespace {

bool power_of_two(std::int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

TEST(RaggedDims, MakesEveryDimOddAndOffAPowerOfTwo) {
  const TaskSpec* relu = find_task("relu");
  ASSERT_NE(relu, nullptr);
  // relu's small dims B=37 N=300: numel 11100, a multiple of 4, where a float4 tail reads nothing
  // outside its buffer.
  const Dims ragged = ragged_dims(relu->small_dims(), *relu, {});
  EXPECT_EQ(ragged.at("B"), 37);
  EXPECT_EQ(ragged.at("N"), 301);
  const Dims from_powers = ragged_dims({{"B", 32}, {"N", 512}}, *relu, {});
  EXPECT_EQ(from_powers.at("B"), 33);
  EXPECT_EQ(from_powers.at("N"), 513);
  EXPECT_EQ(ragged_dims({{"B", 1}, {"N", 2}}, *relu, {}).at("B"), 3);  // 1 is 2^0
  for (const auto& [dim, value] : ragged_dims(relu->small_dims(), *relu, {})) {
    EXPECT_EQ(value % 2, 1) << dim;
    EXPECT_FALSE(power_of_two(value)) << dim;
  }
}

TEST(RaggedDims, StaysInsideTheDomainAndTheKernelsDeclarations) {
  const TaskSpec* relu = find_task("relu");
  ASSERT_NE(relu, nullptr);
  // The domain's top (16384 = 2^14) is even: the nearest ragged value lies below it.
  EXPECT_EQ(ragged_dims({{"B", 16384}, {"N", 300}}, *relu, {}).at("B"), 16383);
  // A kernel declaring N % 64 == 0 keeps N a multiple of 64, off a power of two.
  const Dims declared = ragged_dims(relu->small_dims(), *relu, {parse_dim_restriction("N % 64 == 0")});
  EXPECT_EQ(declared.at("N") % 64, 0);
  EXPECT_FALSE(power_of_two(declared.at("N")));
  EXPECT_EQ(declared.at("N"), 320);
  const Dims capped = ragged_dims({{"B", 37}, {"N", 300}}, *relu, {parse_dim_restriction("N <= 256")});
  EXPECT_LE(capped.at("N"), 256);
  EXPECT_EQ(capped.at("N") % 2, 1);
}

}  // namespace
}  // namespace rkt
