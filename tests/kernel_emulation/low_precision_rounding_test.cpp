// Checks the bf16 / fp16 conversions of low_precision_emulation.h bit for bit on the values where
// rounding is decided (ties to even, carries into the exponent, overflow to infinity, subnormals,
// NaN), and that every 16-bit pattern survives a round trip through fp32: the emulation tests of
// the tensor-core kernels are only as good as these conversions.
#define RKT_CUDA_EMULATION 1
#include "low_precision_emulation.h"
// The emulated header follows the emulation layer on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "low_precision_mma.cuh"

namespace {

namespace lp = rkt::cuda_kernels::low_precision;

TEST(LowPrecisionRounding, Bf16RoundsToNearestEven) {
  EXPECT_EQ(rkt_emulation::float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(rkt_emulation::float_to_bf16(1.0f + 0x1p-8f), 0x3f80);      // tie: to even
  EXPECT_EQ(rkt_emulation::float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie: to even (up)
  EXPECT_EQ(rkt_emulation::float_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(rkt_emulation::float_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(rkt_emulation::float_to_bf16(0x1.ffffp127f), 0x7f80);  // carries to infinity
  EXPECT_EQ(rkt_emulation::float_to_bf16(INFINITY), 0x7f80);
  EXPECT_TRUE(std::isnan(lp::Bf16Format::to_float(rkt_emulation::float_to_bf16(NAN))));
}

TEST(LowPrecisionRounding, Fp16RoundsToNearestEven) {
  EXPECT_EQ(rkt_emulation::float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(rkt_emulation::float_to_fp16(1.0f + 0x1p-11f), 0x3c00);      // tie: to even
  EXPECT_EQ(rkt_emulation::float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie: to even (up)
  EXPECT_EQ(rkt_emulation::float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(rkt_emulation::float_to_fp16(65519.0f), 0x7bff);
  EXPECT_EQ(rkt_emulation::float_to_fp16(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(rkt_emulation::float_to_fp16(-1e9f), 0xfc00);
  EXPECT_EQ(rkt_emulation::float_to_fp16(0x1p-24f), 0x0001);      // smallest subnormal
  EXPECT_EQ(rkt_emulation::float_to_fp16(0x1p-25f), 0x0000);      // tie: to even (zero)
  EXPECT_EQ(rkt_emulation::float_to_fp16(3 * 0x1p-25f), 0x0002);  // tie: to even (up)
  EXPECT_EQ(rkt_emulation::float_to_fp16(0x1.ffcp-15f), 0x0400);  // subnormal rounds to normal
  EXPECT_EQ(rkt_emulation::float_to_fp16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(lp::Fp16Format::to_float(rkt_emulation::float_to_fp16(NAN))));
}

TEST(LowPrecisionRounding, EveryPatternRoundTrips) {
  for (unsigned bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    const float b = lp::Bf16Format::to_float(h);
    const float f = lp::Fp16Format::to_float(h);
    if (!std::isnan(b)) {
      ASSERT_EQ(lp::Bf16Format::from_float(b), h) << std::hex << bits;
    }
    if (!std::isnan(f)) {
      ASSERT_EQ(lp::Fp16Format::from_float(f), h) << std::hex << bits;
    }
  }
}

TEST(LowPrecisionRounding, PackPutsTheFirstValueInTheLowHalf) {
  const unsigned pair = lp::Bf16Format::pack(1.0f, -2.0f);
  EXPECT_EQ(pair, 0xc0003f80u);
  EXPECT_EQ(lp::low_half<lp::Bf16Format>(pair), 1.0f);
  EXPECT_EQ(lp::high_half<lp::Bf16Format>(pair), -2.0f);
}

}  // namespace
