// Runs the bias + GELU tensor-core GEMM of kernels/cuda/bf16_gemm.cuh on the CPU through
// cuda_emulation.h + low_precision_emulation.h, against a float64 reference of gelu(a @ b + bias)
// computed from the same bf16 / fp16 inputs: tails in every dimension, the 16-byte cp.async and
// the 2-byte staging paths (odd K or N, misaligned buffers), paired and single stores, the grouped
// block order (a full and a partial group) and K = 0. Every output element must be written (y
// starts as NaN) and nothing past y (a canary).
#define RKT_CUDA_EMULATION 1
#include "low_precision_emulation.h"
// The emulated headers follow the emulation layer on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "bf16_gemm.cuh"

namespace rkt::cuda_kernels::bf16_gemm {
// The dynamic shared memory the kernel declares `extern __shared__`.
alignas(16) uint4 gemm_shared_raw[BlockTiles::kSharedBytes / sizeof(uint4)];
}  // namespace rkt::cuda_kernels::bf16_gemm

namespace {

namespace gemm = rkt::cuda_kernels::bf16_gemm;
namespace lp = rkt::cuda_kernels::low_precision;

constexpr std::uint16_t kCanary = 0x1234;

template <class Format>
std::vector<std::uint16_t> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint16_t> v(n);
  for (std::uint16_t& x : v) x = Format::from_float(normal(rng));
  return v;
}

// lead: elements before each buffer's first one (1: the buffers start 2 bytes past alignment).
template <class Format, class Tiles, bool kAligned>
void check_gemm(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t lead,
                double tolerance) {
  SCOPED_TRACE(std::string(Format::kIsBf16 ? "bf16" : "fp16") + " M=" + std::to_string(m) +
               " N=" + std::to_string(n) + " K=" + std::to_string(k) +
               " lead=" + std::to_string(lead) + " tile columns=" + std::to_string(Tiles::kBN));
  const std::size_t mk = static_cast<std::size_t>(m * k);
  const std::size_t kn = static_cast<std::size_t>(k * n);
  const std::size_t mn = static_cast<std::size_t>(m * n);
  std::vector<std::uint16_t> a = random_values<Format>(mk + lead, 1);
  std::vector<std::uint16_t> b = random_values<Format>(kn + lead, 2);
  std::vector<std::uint16_t> bias = random_values<Format>(static_cast<std::size_t>(n) + lead, 3);
  std::vector<std::uint16_t> y(mn + lead + 8, Format::from_float(NAN));
  for (std::size_t i = mn + lead; i < y.size(); ++i) y[i] = kCanary;
  const gemm::Params p{
      a.data() + lead, b.data() + lead, bias.data() + lead, y.data() + lead, m, n, k};
  ASSERT_EQ(gemm::copies_aligned(p), kAligned) << "the case does not take the intended path";

  const auto poison_shared = [] {
    auto* h = reinterpret_cast<std::uint16_t*>(gemm::gemm_shared_raw);
    for (std::size_t i = 0; i < sizeof(gemm::gemm_shared_raw) / 2; ++i) h[i] = 0x7fc0;
  };
  const EmulatedDim3 grid{static_cast<unsigned>(gemm::grid_blocks<Tiles>(p)), 1, 1};
  rkt_emulation::run_grid(grid, gemm::kThreads, poison_shared,
                          [&] { gemm::bias_gelu_gemm_kernel<Format, Tiles, kAligned>(p); });

  const auto value = [](const std::vector<std::uint16_t>& t, std::size_t i) {
    return static_cast<double>(Format::to_float(t[i]));
  };
  std::vector<double> ref(mn);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = value(bias, lead + j);
      for (std::int64_t q = 0; q < k; ++q)
        s += value(a, lead + i * k + q) * value(b, lead + q * n + j);
      ref[i * n + j] = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0)));
    }
  double sum_squares = 0;
  for (double r : ref) sum_squares += r * r;
  const double rms = ref.empty() ? 1.0 : std::sqrt(sum_squares / static_cast<double>(ref.size()));
  int bad = 0;
  for (std::size_t i = 0; i < mn; ++i) {
    const double out = value(y, lead + i);
    if (!(std::fabs(out - ref[i]) <= tolerance * (rms + std::fabs(ref[i]))) && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << " (row " << i / n << ", col " << i % n << "): got " << out
                    << ", expected " << ref[i];
    }
  }
  EXPECT_EQ(bad, 0) << "of " << mn << " elements";
  for (std::size_t i = mn + lead; i < y.size(); ++i) EXPECT_EQ(y[i], kCanary) << "past y";
}

using gemm::BlockTiles;
using lp::Bf16Format;
using lp::Fp16Format;

// The output's rounding: 2^-9 relative (bf16), 2^-11 (fp16); a layout error is O(1).
constexpr double kBf16Tolerance = 8e-3;
constexpr double kFp16Tolerance = 2e-3;

TEST(Bf16GemmEmulation, Bf16VectorCopiesWithTails) {
  check_gemm<Bf16Format, BlockTiles, true>(130, 136, 72, 0, kBf16Tolerance);
}
TEST(Bf16GemmEmulation, Fp16VectorCopiesLongK) {
  check_gemm<Fp16Format, BlockTiles, true>(40, 64, 200, 0, kFp16Tolerance);
}
TEST(Bf16GemmEmulation, Fp16ElementCopiesOddShapes) {
  check_gemm<Fp16Format, BlockTiles, false>(33, 45, 70, 0, kFp16Tolerance);
}
TEST(Bf16GemmEmulation, Bf16ElementCopiesMisalignedBuffers) {
  check_gemm<Bf16Format, BlockTiles, false>(20, 24, 40, 1, kBf16Tolerance);
}
// 10 M-tiles x 2 N-tiles: one full group of kGroupM = 8 M-tiles and a partial group of 2.
TEST(Bf16GemmEmulation, Bf16GroupedBlockOrder) {
  check_gemm<Bf16Format, BlockTiles, true>(1240, 136, 8, 0, kBf16Tolerance);
}
TEST(Bf16GemmEmulation, Bf16EmptyKIsGeluOfBias) {
  check_gemm<Bf16Format, BlockTiles, true>(3, 8, 0, 0, kBf16Tolerance);
}
}  // namespace
