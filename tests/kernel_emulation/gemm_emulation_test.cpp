// Runs the tensor-core GEMM of kernels/cuda/tf32x3_gemm.cuh (and the implicit-GEMM convolution of
// conv3x3_gemm.cuh) on the CPU through cuda_emulation.h, and compares the results with a float64
// reference: tails in every dimension, 16- and 4-byte copy paths, both B layouts, two B operands,
// the convolution's gather and epilogues, and the grouped block order (a full and a partial group).
// Every output element must be written exactly once (outputs start as NaN; the problems count
// stores). The Problem structs mirror those of matmul.cu, rkb_linear.cu and rkb_llama_ffw.cu.
#define RKT_CUDA_EMULATION 1
#include "cuda_emulation.h"
// The emulated headers follow the emulation layer on purpose.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "conv3x3_gemm.cuh"
#include "tf32x3_gemm.cuh"

namespace rkt::cuda_kernels::gemm {
// The dynamic shared memory the kernel declares `extern __shared__`: the largest configuration
// (three stages of 9216 floats).
alignas(16) float4 shared_raw[kStages * 9216 / 4];
}  // namespace rkt::cuda_kernels::gemm

namespace {

namespace gemm = rkt::cuda_kernels::gemm;
namespace conv3x3 = rkt::cuda_kernels::conv3x3;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// Counts stores per output element (atomically: 256 threads store).
struct StoreCounter {
  explicit StoreCounter(std::size_t n) : counts(n) {}
  std::vector<std::atomic<int>> counts;
  void count(std::int64_t i) const { const_cast<std::atomic<int>&>(counts[i])++; }
};

template <class Problem>
void run(const Problem& problem) {
  const std::int64_t n_tiles = (problem.n + Problem::kBN - 1) / Problem::kBN;
  const std::int64_t m_tiles = (problem.m + gemm::kBM - 1) / gemm::kBM;
  const EmulatedDim3 grid{static_cast<unsigned>(n_tiles * m_tiles), 1, 1};  // as launched
  const auto poison_shared = [] {
    float* s = reinterpret_cast<float*>(gemm::shared_raw);
    const std::size_t floats = 4 * (sizeof(gemm::shared_raw) / sizeof(float4));
    for (std::size_t i = 0; i < floats; ++i) s[i] = kNaN;
  };
  rkt_emulation::run_grid(grid, gemm::kThreads, poison_shared,
                          [&] { gemm::tf32x3_gemm_kernel<Problem>(problem); });
}

// Compares with the float64 reference at fp32's tolerance (atol in units of the reference RMS):
// 3xTF32 is about 1e-6 relative, a layout or index error is O(1).
void expect_close(const std::vector<float>& out, const std::vector<double>& ref,
                  const StoreCounter& stores) {
  double sum_squares = 0;
  for (double r : ref) sum_squares += r * r;
  const double rms = ref.empty() ? 1.0 : std::sqrt(sum_squares / ref.size());
  int bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const int written = stores.counts[i].load();
    const bool ok =
        written == 1 && std::fabs(out[i] - ref[i]) <= 1e-4 * rms + 1e-4 * std::fabs(ref[i]);
    if (!ok && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << ": got " << out[i] << ", expected " << ref[i]
                    << ", stored " << written << " times";
    }
  }
  EXPECT_EQ(bad, 0) << "of " << ref.size() << " elements";
}

// ---- matmul: A [M, K] @ B [K, N] (B rows-contiguous) ----------------------------------------

template <int kVec>
struct MatmulProblem {
  static constexpr int kBN = 128;
  static constexpr int kNumB = 1;
  static constexpr int kMinBlocksPerSM = 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::RowsContiguous<kBN>;
  const float* a;
  const float* b;
  float* c;
  const StoreCounter* stores;
  std::int64_t m, n, k;
  void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, a, m, k, k, m0, k0);
  }
  void load_b(int, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_rows_contiguous<kBN, kVec>(stage, b, k, n, n, n0, k0);
  }
  void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    c[row * n + col] = acc[0];
    stores->count(row * n + col);
  }
};

template <int kVec>
void check_matmul(std::int64_t m, std::int64_t n, std::int64_t k) {
  SCOPED_TRACE("matmul M=" + std::to_string(m) + " N=" + std::to_string(n) +
               " K=" + std::to_string(k) + " vec=" + std::to_string(kVec));
  const std::vector<float> a = random_vector(m * k, 1);
  const std::vector<float> b = random_vector(k * n, 2);
  std::vector<float> c(m * n, kNaN);
  StoreCounter stores(m * n);
  run(MatmulProblem<kVec>{a.data(), b.data(), c.data(), &stores, m, n, k});
  std::vector<double> ref(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t q = 0; q < k; ++q) ref[i * n + j] += double{a[i * k + q]} * b[q * n + j];
  expect_close(c, ref, stores);
}

TEST(Tf32x3GemmEmulation, MatmulVectorCopiesWithTails) { check_matmul<4>(130, 136, 72); }
TEST(Tf32x3GemmEmulation, MatmulScalarCopiesOddShapes) { check_matmul<1>(33, 45, 70); }
// 10 M-tiles x 2 N-tiles: one full group of kGroupM = 8 M-tiles and a partial group of 2.
TEST(Tf32x3GemmEmulation, MatmulGroupedBlockOrder) { check_matmul<4>(1240, 136, 4); }
TEST(Tf32x3GemmEmulation, MatmulEmptyK) { check_matmul<1>(3, 5, 0); }

// ---- linear: x [M, K] @ w [N, K]^T + bias, optional ReLU (B k-contiguous) --------------------

template <int kVec, bool kRelu>
struct LinearProblem {
  static constexpr int kBN = 128;
  static constexpr int kNumB = 1;
  static constexpr int kMinBlocksPerSM = 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  const StoreCounter* stores;
  std::int64_t m, n, k;
  void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, x, m, k, k, m0, k0);
  }
  void load_b(int, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVec>(stage, w, n, k, k, n0, k0);
  }
  void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    float v = acc[0] + bias[col];
    if (kRelu) v = v > 0.0f ? v : 0.0f;
    y[row * n + col] = v;
    stores->count(row * n + col);
  }
};

template <int kVec, bool kRelu>
void check_linear(std::int64_t m, std::int64_t n, std::int64_t k) {
  SCOPED_TRACE("linear M=" + std::to_string(m) + " N=" + std::to_string(n) +
               " K=" + std::to_string(k) + " vec=" + std::to_string(kVec) +
               " relu=" + std::to_string(kRelu));
  const std::vector<float> x = random_vector(m * k, 3);
  const std::vector<float> w = random_vector(n * k, 4);
  const std::vector<float> bias = random_vector(n, 5);
  std::vector<float> y(m * n, kNaN);
  StoreCounter stores(m * n);
  run(LinearProblem<kVec, kRelu>{x.data(), w.data(), bias.data(), y.data(), &stores, m, n, k});
  std::vector<double> ref(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = bias[j];
      for (std::int64_t q = 0; q < k; ++q) s += double{x[i * k + q]} * w[j * k + q];
      ref[i * n + j] = kRelu && s < 0 ? 0.0 : s;
    }
  expect_close(y, ref, stores);
}

TEST(Tf32x3GemmEmulation, LinearReluVectorCopies) { check_linear<4, true>(64, 10, 128); }
TEST(Tf32x3GemmEmulation, LinearScalarCopiesTails) { check_linear<1, false>(5, 129, 37); }

// ---- gated: silu(x @ g^T) * (x @ u^T), two B operands -----------------------------------------

template <int kVec>
struct GatedProblem {
  static constexpr int kBN = 64;
  static constexpr int kNumB = 2;
  static constexpr int kMinBlocksPerSM = 1;
  using ALayout = gemm::KContiguous<gemm::kBM>;
  using BLayout = gemm::KContiguous<kBN>;
  const float* x;
  const float* gate;
  const float* up;
  float* h;
  const StoreCounter* stores;
  std::int64_t m, n, k;
  void load_a(float* stage, std::int64_t m0, std::int64_t k0) const {
    gemm::load_k_contiguous<gemm::kBM, kVec>(stage, x, m, k, k, m0, k0);
  }
  void load_b(int operand, float* stage, std::int64_t n0, std::int64_t k0) const {
    gemm::load_k_contiguous<kBN, kVec>(stage, operand == 0 ? gate : up, n, k, k, n0, k0);
  }
  void store(std::int64_t row, std::int64_t col, const float (&acc)[kNumB]) const {
    const float g = acc[0];
    h[row * n + col] = g / (1.0f + std::exp(-g)) * acc[1];
    stores->count(row * n + col);
  }
};

template <int kVec>
void check_gated(std::int64_t m, std::int64_t n, std::int64_t k) {
  SCOPED_TRACE("gated M=" + std::to_string(m) + " N=" + std::to_string(n) +
               " K=" + std::to_string(k) + " vec=" + std::to_string(kVec));
  const std::vector<float> x = random_vector(m * k, 6);
  const std::vector<float> gate = random_vector(n * k, 7);
  const std::vector<float> up = random_vector(n * k, 8);
  std::vector<float> h(m * n, kNaN);
  StoreCounter stores(m * n);
  run(GatedProblem<kVec>{x.data(), gate.data(), up.data(), h.data(), &stores, m, n, k});
  std::vector<double> ref(m * n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double g = 0, u = 0;
      for (std::int64_t q = 0; q < k; ++q) {
        g += double{x[i * k + q]} * gate[j * k + q];
        u += double{x[i * k + q]} * up[j * k + q];
      }
      ref[i * n + j] = g / (1 + std::exp(-g)) * u;
    }
  expect_close(h, ref, stores);
}

TEST(Tf32x3GemmEmulation, GatedTwoOperandsVector) { check_gated<4>(20, 70, 40); }
TEST(Tf32x3GemmEmulation, GatedTwoOperandsScalar) { check_gated<1>(3, 9, 13); }

// ---- conv3x3 (padding 1) with a bias epilogue, through conv3x3::Problem --------------------

struct BiasEpilogue {
  const float* bias;
  float* y;
  const StoreCounter* stores;
  int cout;
  std::int64_t plane;
  void operator()(std::int64_t image, std::int64_t channel, std::int64_t offset, float acc) const {
    const std::int64_t i = (image * cout + channel) * plane + offset;
    y[i] = acc + bias[channel];
    stores->count(i);
  }
};

template <int kBN, int kVecB>
void check_conv(int batch, int cin, int cout, int h, int w) {
  SCOPED_TRACE("conv B=" + std::to_string(batch) + " Cin=" + std::to_string(cin) + " Cout=" +
               std::to_string(cout) + " H=" + std::to_string(h) + " W=" + std::to_string(w));
  const std::vector<float> x = random_vector(std::size_t(batch) * cin * h * w, 9);
  const std::vector<float> wt = random_vector(std::size_t(cout) * cin * 9, 10);
  const std::vector<float> bias = random_vector(cout, 11);
  const std::size_t outputs = std::size_t(batch) * cout * h * w;
  std::vector<float> y(outputs, kNaN);
  StoreCounter stores(outputs);
  const conv3x3::Geometry g{batch, cin, cout, h, w};
  const BiasEpilogue epilogue{bias.data(), y.data(), &stores, cout, std::int64_t{h} * w};
  run(conv3x3::Problem<kBN, kVecB, BiasEpilogue>(x.data(), wt.data(), g, epilogue));
  std::vector<double> ref(outputs);
  for (int b = 0; b < batch; ++b)
    for (int co = 0; co < cout; ++co)
      for (int oy = 0; oy < h; ++oy)
        for (int ox = 0; ox < w; ++ox) {
          double s = bias[co];
          for (int ci = 0; ci < cin; ++ci)
            for (int ky = 0; ky < 3; ++ky)
              for (int kx = 0; kx < 3; ++kx) {
                const int iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                s += double{x[((std::size_t(b) * cin + ci) * h + iy) * w + ix]} *
                     wt[(std::size_t(co) * cin + ci) * 9 + ky * 3 + kx];
              }
          ref[((std::size_t(b) * cout + co) * h + oy) * w + ox] = s;
        }
  expect_close(y, ref, stores);
}

TEST(Tf32x3GemmEmulation, ConvNarrowScalarWeights) { check_conv<64, 1>(2, 3, 5, 9, 11); }
TEST(Tf32x3GemmEmulation, ConvWideVectorWeights) { check_conv<128, 4>(1, 4, 70, 5, 6); }
TEST(Tf32x3GemmEmulation, ConvOnePixelImages) { check_conv<64, 1>(3, 2, 3, 1, 1); }

}  // namespace
