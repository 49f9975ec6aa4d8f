// Runs the causal attention backward of kernels/cuda/flash_attention_backward.cuh (its query
// kernel, then its key kernel, as the launch does) on the CPU through cuda_emulation.h +
// low_precision_emulation.h, against float64 gradients computed here from the same bf16 / fp16
// inputs (the forward's softmax, then the analytic backward). Covered: both formats, head dims
// 64 and 128, multi-head and grouped-query heads (H 4 over G 2 and G 1), sequence lengths 1, 17,
// 63, 65, 80, 96 and 130 (under, at either side of, and past one 64-wide tile), batches of two,
// the 16-byte (cp.async) and the 2-byte (misaligned buffers) staging paths, and scores large
// enough that the row statistics need their running max. Every gradient element must be written
// (outputs and the statistics scratch start as NaN) and nothing past an output may be touched (a
// canary after each).
#define RKT_CUDA_EMULATION 1
#include "low_precision_emulation.h"
// The emulated headers follow the emulation layer on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "attention_emulation_inputs.h"
#include "flash_attention_backward.cuh"

namespace rkt::cuda_kernels::flash_backward {
// The dynamic shared memory both kernels declare `extern __shared__`: the largest configuration.
alignas(16) uint4 flash_backward_shared_raw[shared_bytes<128>() / sizeof(uint4)];
}  // namespace rkt::cuda_kernels::flash_backward

namespace {

namespace backward = rkt::cuda_kernels::flash_backward;
namespace lp = rkt::cuda_kernels::low_precision;

using rkt::attention_emulation::kCanary;
using rkt::attention_emulation::random_values;
using rkt::attention_emulation::Shape;
constexpr std::size_t kCanaryElems = 8;

// An output buffer: `lead` elements of misalignment, n NaNs, then canaries.
template <class Format>
std::vector<std::uint16_t> poisoned_output(std::size_t n, std::size_t lead) {
  std::vector<std::uint16_t> out(lead + n + kCanaryElems, Format::from_float(NAN));
  for (std::size_t i = lead + n; i < out.size(); ++i) out[i] = kCanary;
  return out;
}

// The float64 gradients of causal attention (query i sees key j <= i, scale 1 / sqrt(D)):
// P = softmax(q k^T scale), o = P v, dP = grad_o v^T, delta_i = grad_o_i . o_i,
// dS = P (dP - delta), grad_q = dS k scale, grad_k = sum over the group's heads of dS^T q scale,
// grad_v = sum over the group's heads of P^T grad_o. Beside each gradient element, the root sum of
// squares of the terms it sums (the tolerance's scale, see below).
struct Gradient {
  std::vector<double> value, terms_rss;
};
struct Reference {
  Gradient grad_q, grad_k, grad_v;
};

Reference reference_gradients(const Shape& s, int dim, const std::vector<double>& q,
                              const std::vector<double>& k, const std::vector<double>& v,
                              const std::vector<double>& grad_o) {
  const auto n_q = static_cast<std::size_t>(s.batch * s.heads * s.seq * dim);
  const auto n_kv = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * dim);
  const auto zeros = [](std::size_t n) {
    return Gradient{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  };
  Reference r{zeros(n_q), zeros(n_kv), zeros(n_kv)};
  const auto add = [](Gradient& gradient, std::size_t i, double term) {
    gradient.value[i] += term;
    gradient.terms_rss[i] += term * term;  // the sum of squares until the end
  };
  const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
  const std::int64_t group = s.heads / s.kv_heads;
  std::vector<double> prob(static_cast<std::size_t>(s.seq));
  std::vector<double> dprob(static_cast<std::size_t>(s.seq));
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads; ++h) {
      const auto qo = static_cast<std::size_t>((b * s.heads + h) * s.seq * dim);
      const auto kvo = static_cast<std::size_t>((b * s.kv_heads + h / group) * s.seq * dim);
      for (std::int64_t i = 0; i < s.seq; ++i) {
        const std::size_t qi = qo + static_cast<std::size_t>(i * dim);
        double max = -INFINITY;
        for (std::int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int d = 0; d < dim; ++d) dot += q[qi + d] * k[kvo + j * dim + d];
          prob[j] = dot * scale;
          max = std::max(max, prob[j]);
        }
        double sum = 0;
        for (std::int64_t j = 0; j <= i; ++j) sum += (prob[j] = std::exp(prob[j] - max));
        double delta = 0;
        for (int d = 0; d < dim; ++d) {
          double o = 0;
          for (std::int64_t j = 0; j <= i; ++j) o += prob[j] / sum * v[kvo + j * dim + d];
          delta += grad_o[qi + d] * o;
        }
        for (std::int64_t j = 0; j <= i; ++j) {
          prob[j] /= sum;
          double dot = 0;
          for (int d = 0; d < dim; ++d) dot += grad_o[qi + d] * v[kvo + j * dim + d];
          dprob[j] = dot;
        }
        for (std::int64_t j = 0; j <= i; ++j) {
          const double ds = prob[j] * (dprob[j] - delta);
          const std::size_t kj = kvo + static_cast<std::size_t>(j * dim);
          for (int d = 0; d < dim; ++d) {
            add(r.grad_q, qi + d, ds * k[kj + d] * scale);
            add(r.grad_k, kj + d, ds * q[qi + d] * scale);
            add(r.grad_v, kj + d, prob[j] * grad_o[qi + d]);
          }
        }
      }
    }
  for (Gradient* gradient : {&r.grad_q, &r.grad_k, &r.grad_v})
    for (double& x : gradient->terms_rss) x = std::sqrt(x);
  return r;
}

// The bound on |kernel - reference| for one gradient element, from the format's unit roundoff u
// (2^-8 bf16, 2^-11 fp16). The inputs are exact in both computations; the kernel's error comes
// from (1) rounding the gradient once at the store: <= u |ref|; (2) the MMA operands it computes,
// P and dS, rounded to the format: each term of the element's sum off by <= u relative, signs
// independent, so the sum is off by about u / sqrt(3) times the root sum of squares of the terms
// (rss; 4 u rss is about 7 standard deviations). Not the gradient's own size: the terms cancel
// (sum_j dS_ij = 0 exactly), and rss is up to several times |ref| and the RMS; (3) fp32's
// accumulation and exp2f, ~2^-24 per operation: negligible, except where a gradient is exactly
// zero in float64 (S = 1: dS = 0), which the last term (u rms / 64) absorbs. An index, mask or
// statistics error is off by O(rss). Mutations tried by hand, each failing this suite: the causal
// mask off by one (key < query in the query kernel): 9 of its 9 tests; delta dropped from dS^T
// (key kernel): 9; only the first query head of a group summed into grad_k / grad_v: the 4 tests
// with H / G > 1; kv head h % G instead of h / (H / G): the H 4, G 2 test.
double error_bound(double u, double ref, double terms_rss, double rms) {
  return u * (std::fabs(ref) + 4.0 * terms_rss + rms / 64.0);
}

constexpr double kBf16UnitRoundoff = 1.0 / 256.0;   // 2^-8
constexpr double kFp16UnitRoundoff = 1.0 / 2048.0;  // 2^-11

template <class Format>
int compare(const char* name, const std::vector<std::uint16_t>& out, std::size_t lead,
            const Gradient& ref, int dim, double unit_roundoff) {
  double sum_squares = 0;
  for (double x : ref.value) sum_squares += x * x;
  const std::size_t n = ref.value.size();
  const double rms = n == 0 ? 0.0 : std::sqrt(sum_squares / static_cast<double>(n));
  int bad = 0;
  double worst = 0;  // the largest |error| / bound
  for (std::size_t i = 0; i < n; ++i) {
    const double got = static_cast<double>(Format::to_float(out[lead + i]));
    const double bound = error_bound(unit_roundoff, ref.value[i], ref.terms_rss[i], rms);
    const double error = std::fabs(got - ref.value[i]);
    if (!(error <= bound)) {  // NaN fails too
      if (++bad <= 5) {
        ADD_FAILURE() << name << " element " << i << " (row " << i / dim << ", d " << i % dim
                      << "): got " << got << ", expected " << ref.value[i] << " +- " << bound;
      }
    } else if (bound > 0) {
      worst = std::max(worst, error / bound);
    }
  }
  EXPECT_EQ(bad, 0) << name << ": of " << n << " elements";
  for (std::size_t i = lead + n; i < out.size(); ++i)
    EXPECT_EQ(out[i], kCanary) << "written past " << name;
  // The margin, in the log: how close the honest kernel comes to the bound.
  std::printf("  %s: largest error %.3f of the bound\n", name, worst);
  return bad;
}

template <class Format, int kD, bool kAligned>
void check_backward(const Shape& s, float qk_scale) {
  const double unit_roundoff = Format::kIsBf16 ? kBf16UnitRoundoff : kFp16UnitRoundoff;
  SCOPED_TRACE(std::string(Format::kIsBf16 ? "bf16" : "fp16") + " D=" + std::to_string(kD) +
               (kAligned ? "" : " misaligned") + " B=" + std::to_string(s.batch) +
               " H=" + std::to_string(s.heads) + " G=" + std::to_string(s.kv_heads) +
               " S=" + std::to_string(s.seq) + " q,k std=" + std::to_string(qk_scale));
  const auto n_q = static_cast<std::size_t>(s.batch * s.heads * s.seq * kD);
  const auto n_kv = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * kD);
  // One leading element when misaligned: the buffers start 2 bytes past a 16-byte boundary.
  const std::size_t lead = kAligned ? 0 : 1;
  const std::vector<std::uint16_t> q = random_values<Format>(n_q + lead, 11, qk_scale);
  const std::vector<std::uint16_t> k = random_values<Format>(n_kv + lead, 12, qk_scale);
  const std::vector<std::uint16_t> v = random_values<Format>(n_kv + lead, 13, 1.0f);
  const std::vector<std::uint16_t> grad_o = random_values<Format>(n_q + lead, 14, 1.0f);
  std::vector<std::uint16_t> grad_q = poisoned_output<Format>(n_q, lead);
  std::vector<std::uint16_t> grad_k = poisoned_output<Format>(n_kv, lead);
  std::vector<std::uint16_t> grad_v = poisoned_output<Format>(n_kv, lead);
  const auto rows = static_cast<std::size_t>(s.batch * s.heads * s.seq);
  std::vector<float> statistics(2 * rows, NAN);

  const backward::Params p{q.data() + lead,
                           k.data() + lead,
                           v.data() + lead,
                           grad_o.data() + lead,
                           grad_q.data() + lead,
                           grad_k.data() + lead,
                           grad_v.data() + lead,
                           statistics.data(),
                           statistics.data() + rows,
                           s.batch,
                           s.heads,
                           s.kv_heads,
                           s.seq,
                           1.0f / std::sqrt(static_cast<float>(kD)),
                           rkt::cuda_kernels::flash::kLog2e / std::sqrt(static_cast<float>(kD))};
  ASSERT_EQ(lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) &&
                lp::aligned16(p.grad_o) && lp::aligned16(p.grad_q) && lp::aligned16(p.grad_k) &&
                lp::aligned16(p.grad_v),
            kAligned);
  const auto poison_shared = [] {
    auto* halves = reinterpret_cast<std::uint16_t*>(backward::flash_backward_shared_raw);
    for (std::size_t i = 0; i < sizeof(backward::flash_backward_shared_raw) / 2; ++i)
      halves[i] = 0x7fc0;  // NaN in bf16 and in fp16
  };
  std::int64_t gx = 0;
  std::int64_t gy = 0;
  backward::query_grid(p, gx, gy);
  rkt_emulation::run_grid(EmulatedDim3{static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1},
                          backward::kThreads, poison_shared,
                          [&] { backward::flash_backward_query_kernel<Format, kD, kAligned>(p); });
  backward::key_grid(p, gx, gy);
  rkt_emulation::run_grid(EmulatedDim3{static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1},
                          backward::kThreads, poison_shared,
                          [&] { backward::flash_backward_key_kernel<Format, kD, kAligned>(p); });

  const auto as_double = [&](const std::vector<std::uint16_t>& t) {
    std::vector<double> out(t.size() - lead);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<double>(Format::to_float(t[lead + i]));
    return out;
  };
  const Reference ref =
      reference_gradients(s, kD, as_double(q), as_double(k), as_double(v), as_double(grad_o));
  compare<Format>("grad_q", grad_q, lead, ref.grad_q, kD, unit_roundoff);
  compare<Format>("grad_k", grad_k, lead, ref.grad_k, kD, unit_roundoff);
  compare<Format>("grad_v", grad_v, lead, ref.grad_v, kD, unit_roundoff);
}

using lp::Bf16Format;
using lp::Fp16Format;

// One query and one key: P = 1, so every gradient but grad_v (= grad_o) is zero.
TEST(FlashAttentionBackwardEmulation, Bf16D64OneQuery) {
  check_backward<Bf16Format, 64, true>({1, 2, 2, 1}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Fp16D64ShortGroupedMisaligned) {
  check_backward<Fp16Format, 64, false>({1, 4, 2, 17}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Bf16D128OneKvHeadJustUnderATile) {
  check_backward<Bf16Format, 128, true>({1, 4, 1, 63}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Fp16D128JustPastATile) {
  check_backward<Fp16Format, 128, true>({1, 1, 1, 65}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Bf16D64TwoHeadsMisalignedTail) {
  check_backward<Bf16Format, 64, false>({1, 2, 2, 80}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Fp16D64GroupedTwoBatches) {
  check_backward<Fp16Format, 64, true>({2, 2, 1, 96}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Bf16D128ThreeTiles) {
  check_backward<Bf16Format, 128, true>({1, 1, 1, 130}, 1.0f);
}
TEST(FlashAttentionBackwardEmulation, Fp16D128MisalignedThreeTiles) {
  check_backward<Fp16Format, 128, false>({1, 1, 1, 130}, 1.0f);
}
// Scores with a standard deviation of 36 (q, k std 6, D 64), the largest past 88.7 where fp32's
// exp overflows: the row statistics need their running max; the rows are nearly one-hot.
TEST(FlashAttentionBackwardEmulation, Bf16LargeScores) {
  check_backward<Bf16Format, 64, true>({1, 2, 1, 70}, 6.0f);
}

}  // namespace
