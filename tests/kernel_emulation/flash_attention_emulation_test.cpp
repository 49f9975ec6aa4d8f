// Runs the flash attention forward of kernels/cuda/flash_attention.cuh on the CPU through
// cuda_emulation.h + low_precision_emulation.h, against a float64 reference computed from the
// same bf16 / fp16 inputs: both formats, head dims 64 and 128, causal and not, grouped-query
// heads (G < H), sequence lengths below, at and past one tile and not multiples of 64, the
// 16-byte (cp.async) and the 2-byte (misaligned buffers) staging paths, and scores large enough
// that a softmax without its running max would overflow. Every output element must be written
// (the output starts as NaN) and rows past S must stay untouched (a canary after the output).
#define RKT_CUDA_EMULATION 1
#include "low_precision_emulation.h"
// The emulated headers follow the emulation layer on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attention_emulation_inputs.h"
#include "flash_attention.cuh"

namespace rkt::cuda_kernels::flash {
// The dynamic shared memory the kernel declares `extern __shared__`: the largest configuration.
alignas(16) uint4 flash_shared_raw[shared_bytes<128, 2>() / sizeof(uint4)];
}  // namespace rkt::cuda_kernels::flash

namespace {

namespace flash = rkt::cuda_kernels::flash;
namespace lp = rkt::cuda_kernels::low_precision;

using rkt::attention_emulation::kCanary;
using rkt::attention_emulation::random_values;
using rkt::attention_emulation::Shape;

template <class Format, int kD, int kM, bool kCausal, bool kAligned>
void check_attention(const Shape& s, float scale, double tolerance) {
  SCOPED_TRACE(std::string(Format::kIsBf16 ? "bf16" : "fp16") + " D=" + std::to_string(kD) +
               (kCausal ? " causal" : "") + (kAligned ? "" : " misaligned") +
               " B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
               " G=" + std::to_string(s.kv_heads) + " S=" + std::to_string(s.seq) +
               " scale=" + std::to_string(scale) + " m16 tiles per warp=" + std::to_string(kM));
  const std::size_t q_elems = static_cast<std::size_t>(s.batch * s.heads * s.seq * kD);
  const std::size_t kv_elems = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * kD);
  // One leading element when misaligned: the buffers start 2 bytes past a 16-byte boundary.
  const std::size_t lead = kAligned ? 0 : 1;
  std::vector<std::uint16_t> q = random_values<Format>(q_elems + lead, 1, scale);
  std::vector<std::uint16_t> k = random_values<Format>(kv_elems + lead, 2, scale);
  std::vector<std::uint16_t> v = random_values<Format>(kv_elems + lead, 3, 1.0f);
  const std::uint16_t poison = Format::from_float(NAN);
  std::vector<std::uint16_t> o(q_elems + lead + 8, poison);
  for (std::size_t i = q_elems + lead; i < o.size(); ++i) o[i] = kCanary;

  const flash::Params p{
      q.data() + lead, k.data() + lead, v.data() + lead,
      o.data() + lead, s.batch,         s.heads,
      s.kv_heads,      s.seq,           flash::kLog2e / std::sqrt(static_cast<float>(kD))};
  ASSERT_EQ(lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) && lp::aligned16(p.o),
            kAligned);
  std::int64_t gx = 0;
  std::int64_t gy = 0;
  flash::grid_shape<kM>(p, gx, gy);
  const auto poison_shared = [] {
    auto* bytes = reinterpret_cast<std::uint16_t*>(flash::flash_shared_raw);
    for (std::size_t i = 0; i < sizeof(flash::flash_shared_raw) / 2; ++i) bytes[i] = 0x7fc0;
  };
  rkt_emulation::run_grid(
      EmulatedDim3{static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1}, flash::kThreads,
      poison_shared, [&] { flash::flash_attention_kernel<Format, kD, kM, kCausal, kAligned>(p); });

  const auto value = [](const std::vector<std::uint16_t>& t, std::size_t i) {
    return static_cast<double>(Format::to_float(t[i]));
  };
  const std::int64_t group = s.heads / s.kv_heads;
  std::vector<double> ref(q_elems);
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads; ++h) {
      const std::int64_t kvh = h / group;
      const std::size_t qo = static_cast<std::size_t>((b * s.heads + h) * s.seq * kD) + lead;
      const std::size_t kvo = static_cast<std::size_t>((b * s.kv_heads + kvh) * s.seq * kD) + lead;
      for (std::int64_t i = 0; i < s.seq; ++i) {
        const std::int64_t visible = kCausal ? i + 1 : s.seq;
        std::vector<double> w(visible);
        double max = -INFINITY;
        for (std::int64_t j = 0; j < visible; ++j) {
          double dot = 0;
          for (int d = 0; d < kD; ++d)
            dot += value(q, qo + i * kD + d) * value(k, kvo + j * kD + d);
          w[j] = dot / std::sqrt(static_cast<double>(kD));
          max = std::max(max, w[j]);
        }
        double sum = 0;
        for (double& x : w) sum += (x = std::exp(x - max));
        for (int d = 0; d < kD; ++d) {
          double acc = 0;
          for (std::int64_t j = 0; j < visible; ++j) acc += w[j] * value(v, kvo + j * kD + d);
          ref[qo - lead + i * kD + d] = acc / sum;
        }
      }
    }
  double sum_squares = 0;
  for (double r : ref) sum_squares += r * r;
  const double rms = std::sqrt(sum_squares / static_cast<double>(ref.size()));
  int bad = 0;
  for (std::size_t i = 0; i < q_elems; ++i) {
    const double out = value(o, i + lead);
    const bool ok = std::fabs(out - ref[i]) <= tolerance * (rms + std::fabs(ref[i]));
    if (!ok && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << " (row " << i / kD << ", d " << i % kD << "): got " << out
                    << ", expected " << ref[i];
    }
  }
  EXPECT_EQ(bad, 0) << "of " << q_elems << " elements";
  for (std::size_t i = q_elems + lead; i < o.size(); ++i) EXPECT_EQ(o[i], kCanary) << "past o";
}

using lp::Bf16Format;
using lp::Fp16Format;

// bf16 keeps 8 significant bits: the output's rounding is 2^-9 relative, and P rounded to bf16
// adds about as much; an index or layout error is O(1).
constexpr double kBf16Tolerance = 1e-2;
constexpr double kFp16Tolerance = 2.5e-3;

TEST(FlashAttentionEmulation, Bf16D64TailNonCausal) {
  check_attention<Bf16Format, 64, 1, false, true>({1, 2, 2, 70}, 1.0f, kBf16Tolerance);
  check_attention<Bf16Format, 64, 2, false, true>({1, 2, 2, 70}, 1.0f, kBf16Tolerance);
}
TEST(FlashAttentionEmulation, Bf16D128CausalGroupedThreeTiles) {
  check_attention<Bf16Format, 128, 1, true, true>({1, 4, 1, 130}, 1.0f, kBf16Tolerance);
  check_attention<Bf16Format, 128, 2, true, true>({1, 4, 1, 130}, 1.0f, kBf16Tolerance);
}
TEST(FlashAttentionEmulation, Fp16D64CausalExactTileGrouped) {
  check_attention<Fp16Format, 64, 1, true, true>({2, 4, 2, 64}, 1.0f, kFp16Tolerance);
  check_attention<Fp16Format, 64, 2, true, true>({2, 4, 2, 64}, 1.0f, kFp16Tolerance);
}
TEST(FlashAttentionEmulation, Fp16D128ShortMisaligned) {
  check_attention<Fp16Format, 128, 1, false, false>({1, 2, 1, 33}, 1.0f, kFp16Tolerance);
  check_attention<Fp16Format, 128, 2, false, false>({1, 2, 1, 33}, 1.0f, kFp16Tolerance);
}
TEST(FlashAttentionEmulation, Bf16D64CausalMisalignedTail) {
  check_attention<Bf16Format, 64, 1, true, false>({1, 1, 1, 100}, 1.0f, kBf16Tolerance);
  check_attention<Bf16Format, 64, 2, true, false>({1, 1, 1, 100}, 1.0f, kBf16Tolerance);
}
// Scores of several hundred: exp without the running max overflows fp32.
TEST(FlashAttentionEmulation, Bf16LargeScoresNeedTheRunningMax) {
  check_attention<Bf16Format, 64, 1, false, true>({1, 1, 1, 129}, 12.0f, kBf16Tolerance);
  check_attention<Bf16Format, 64, 2, false, true>({1, 1, 1, 129}, 12.0f, kBf16Tolerance);
}
// Several query blocks whose diagonal spans two key tiles (128-query blocks): the per-warp mask.
TEST(FlashAttentionEmulation, Bf16D64CausalSeveralQueryBlocks) {
  check_attention<Bf16Format, 64, 1, true, true>({1, 1, 1, 300}, 1.0f, kBf16Tolerance);
  check_attention<Bf16Format, 64, 2, true, true>({1, 1, 1, 300}, 1.0f, kBf16Tolerance);
}
TEST(FlashAttentionEmulation, Fp16OneQuery) {
  check_attention<Fp16Format, 64, 1, true, true>({1, 2, 2, 1}, 1.0f, kFp16Tolerance);
  check_attention<Fp16Format, 64, 2, true, true>({1, 2, 2, 1}, 1.0f, kFp16Tolerance);
}

}  // namespace
