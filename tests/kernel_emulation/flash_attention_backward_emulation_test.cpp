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

// In `Real` arithmetic: double for the reference; float for an honest fp32 computation of the
// same maths (the framework's honest sample, derived_tolerance.h), whose outputs the caller rounds.
template <class Real = double>
Reference reference_gradients(const Shape& s, int dim, const std::vector<double>& q,
                              const std::vector<double>& k, const std::vector<double>& v,
                              const std::vector<double>& grad_o) {
  const auto n_q = static_cast<std::size_t>(s.batch * s.heads * s.seq * dim);
  const auto n_kv = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * dim);
  const auto zeros = [](std::size_t n) {
    return Gradient{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  };
  Reference r{zeros(n_q), zeros(n_kv), zeros(n_kv)};
  const auto add = [](Gradient& gradient, std::size_t i, Real term_real) {
    const auto term = static_cast<double>(term_real);
    // Summed in Real, as an fp32 computation sums in fp32.
    gradient.value[i] = static_cast<double>(static_cast<Real>(gradient.value[i]) + term_real);
    gradient.terms_rss[i] += term * term;  // the sum of squares until the end
  };
  const Real scale = Real(1) / std::sqrt(static_cast<Real>(dim));
  const std::int64_t group = s.heads / s.kv_heads;
  std::vector<Real> prob(static_cast<std::size_t>(s.seq));
  std::vector<Real> dprob(static_cast<std::size_t>(s.seq));
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t h = 0; h < s.heads; ++h) {
      const auto qo = static_cast<std::size_t>((b * s.heads + h) * s.seq * dim);
      const auto kvo = static_cast<std::size_t>((b * s.kv_heads + h / group) * s.seq * dim);
      for (std::int64_t i = 0; i < s.seq; ++i) {
        const std::size_t qi = qo + static_cast<std::size_t>(i * dim);
        Real max = -INFINITY;
        for (std::int64_t j = 0; j <= i; ++j) {
          Real dot = 0;
          for (int d = 0; d < dim; ++d) dot += Real(q[qi + d]) * Real(k[kvo + j * dim + d]);
          prob[j] = dot * scale;
          max = std::max(max, prob[j]);
        }
        Real sum = 0;
        for (std::int64_t j = 0; j <= i; ++j) sum += (prob[j] = std::exp(prob[j] - max));
        Real delta = 0;
        for (int d = 0; d < dim; ++d) {
          Real o = 0;
          for (std::int64_t j = 0; j <= i; ++j) o += prob[j] / sum * Real(v[kvo + j * dim + d]);
          delta += Real(grad_o[qi + d]) * o;
        }
        for (std::int64_t j = 0; j <= i; ++j) {
          prob[j] /= sum;
          Real dot = 0;
          for (int d = 0; d < dim; ++d) dot += Real(grad_o[qi + d]) * Real(v[kvo + j * dim + d]);
          dprob[j] = dot;
        }
        for (std::int64_t j = 0; j <= i; ++j) {
          const Real ds = prob[j] * (dprob[j] - delta);
          const std::size_t kj = kvo + static_cast<std::size_t>(j * dim);
          for (int d = 0; d < dim; ++d) {
            add(r.grad_q, qi + d, ds * Real(k[kj + d]) * scale);
            add(r.grad_k, kj + d, ds * Real(q[qi + d]) * scale);
            add(r.grad_v, kj + d, prob[j] * Real(grad_o[qi + d]));
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

// The kernels' gradients (with `lead` elements of misalignment before each, canaries after).
struct KernelGradients {
  std::vector<std::uint16_t> grad_q, grad_k, grad_v;
};

// Runs the query kernel, then the key kernel, as the launch does, on poisoned outputs and scratch.
template <class Format, int kD, bool kAligned>
KernelGradients run_backward_kernels(const Shape& s, const std::vector<std::uint16_t>& q,
                                     const std::vector<std::uint16_t>& k,
                                     const std::vector<std::uint16_t>& v,
                                     const std::vector<std::uint16_t>& grad_o, std::size_t lead) {
  const auto n_q = static_cast<std::size_t>(s.batch * s.heads * s.seq * kD);
  const auto n_kv = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * kD);
  KernelGradients out{poisoned_output<Format>(n_q, lead), poisoned_output<Format>(n_kv, lead),
                      poisoned_output<Format>(n_kv, lead)};
  const auto rows = static_cast<std::size_t>(s.batch * s.heads * s.seq);
  std::vector<float> statistics(3 * rows, NAN);

  const backward::Params p{q.data() + lead,
                           k.data() + lead,
                           v.data() + lead,
                           grad_o.data() + lead,
                           out.grad_q.data() + lead,
                           out.grad_k.data() + lead,
                           out.grad_v.data() + lead,
                           statistics.data(),
                           statistics.data() + rows,
                           statistics.data() + 2 * rows,
                           s.batch,
                           s.heads,
                           s.kv_heads,
                           s.seq,
                           1.0f / std::sqrt(static_cast<float>(kD)),
                           rkt::cuda_kernels::flash::kLog2e / std::sqrt(static_cast<float>(kD))};
  EXPECT_EQ(lp::aligned16(p.q) && lp::aligned16(p.k) && lp::aligned16(p.v) &&
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
  return out;
}

template <class Format>
std::vector<double> as_double(const std::vector<std::uint16_t>& t, std::size_t lead,
                              std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(Format::to_float(t[lead + i]));
  return out;
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
  const KernelGradients got = run_backward_kernels<Format, kD, kAligned>(s, q, k, v, grad_o, lead);
  const Reference ref =
      reference_gradients(s, kD, as_double<Format>(q, lead, n_q), as_double<Format>(k, lead, n_kv),
                          as_double<Format>(v, lead, n_kv), as_double<Format>(grad_o, lead, n_q));
  compare<Format>("grad_q", got.grad_q, lead, ref.grad_q, kD, unit_roundoff);
  compare<Format>("grad_k", got.grad_k, lead, ref.grad_k, kD, unit_roundoff);
  compare<Format>("grad_v", got.grad_v, lead, ref.grad_v, kD, unit_roundoff);
}

// ||x - ref|| / ||ref||.
double relative_error_norm(const std::vector<double>& x, const std::vector<double>& ref) {
  double error = 0;
  double norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    error += (x[i] - ref[i]) * (x[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(error / norm);
}

// The framework's bound at any scale (framework/comparison/derived_tolerance.h): a gradient's
// relative error norm within kHonestErrorNormFactor (4) times that of an honest fp32 computation
// of the same maths on the same inputs, its outputs stored in the format. At scores this large no
// elementwise bound in u holds (the fp32 scores' own rounding is past u); the norm bound is what
// rkt's property_scale case applies there.
template <class Format, int kD>
void check_error_norms_within_the_honest_bound(const Shape& s, float qk_scale, float vo_scale) {
  SCOPED_TRACE(std::string(Format::kIsBf16 ? "bf16" : "fp16") + " q,k std=" +
               std::to_string(qk_scale) + " v,grad_o std=" + std::to_string(vo_scale));
  const auto n_q = static_cast<std::size_t>(s.batch * s.heads * s.seq * kD);
  const auto n_kv = static_cast<std::size_t>(s.batch * s.kv_heads * s.seq * kD);
  const std::vector<std::uint16_t> q = random_values<Format>(n_q, 21, qk_scale);
  const std::vector<std::uint16_t> k = random_values<Format>(n_kv, 22, qk_scale);
  const std::vector<std::uint16_t> v = random_values<Format>(n_kv, 23, vo_scale);
  const std::vector<std::uint16_t> grad_o = random_values<Format>(n_q, 24, vo_scale);
  const KernelGradients got = run_backward_kernels<Format, kD, true>(s, q, k, v, grad_o, 0);
  const std::vector<double> qd = as_double<Format>(q, 0, n_q), kd = as_double<Format>(k, 0, n_kv),
                            vd = as_double<Format>(v, 0, n_kv),
                            god = as_double<Format>(grad_o, 0, n_q);
  const Reference ref = reference_gradients<double>(s, kD, qd, kd, vd, god);
  const Reference fp32 = reference_gradients<float>(s, kD, qd, kd, vd, god);
  // The honest computation's outputs stored in the format, as the framework's honest sample's.
  const auto stored = [](std::vector<double> x) {
    for (double& value : x) {
      value = static_cast<double>(Format::to_float(Format::from_float(static_cast<float>(value))));
    }
    return x;
  };
  struct Compared {
    const char* name;
    const std::vector<std::uint16_t>& kernel;
    const Gradient& reference;
    const Gradient& honest;
  };
  for (const Compared& output : {Compared{"grad_q", got.grad_q, ref.grad_q, fp32.grad_q},
                                 Compared{"grad_k", got.grad_k, ref.grad_k, fp32.grad_k},
                                 Compared{"grad_v", got.grad_v, ref.grad_v, fp32.grad_v}}) {
    const std::vector<double>& reference = output.reference.value;
    const double kernel_error =
        relative_error_norm(as_double<Format>(output.kernel, 0, reference.size()), reference);
    const double honest_error = relative_error_norm(stored(output.honest.value), reference);
    EXPECT_LE(kernel_error, 4.0 * honest_error) << output.name;
    std::printf("  %s: relative error norm %.3g, honest fp32 %.3g (%.2fx)\n", output.name,
                kernel_error, honest_error, kernel_error / honest_error);
  }
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

// Inputs x206, as run 38's failing property_scale trial drew them (q, k std 1.6 x 206, v and
// grad_o std 206; docs/gpu_runs.md): scores near 5e5, where one log-sum-exp float (max + log2 sum)
// rounds to 1/16 and moved every P of a row by up to 4%.
TEST(FlashAttentionBackwardEmulation, Bf16ScaledInputsWithinTheHonestErrorNormBound) {
  check_error_norms_within_the_honest_bound<Bf16Format, 64>({1, 2, 1, 130}, 1.6f * 206.0f, 206.0f);
}
// Inputs x952.8, as run 39's failing trial of the same seed drew them on the H200 after the fix
// (grad_q's and grad_k's error norms 0.33 against the bound 0.116 there). Emulated here, the
// kernel's norms equal the honest fp32 computation's (1.00-1.02x), so that failure is not in
// the header's arithmetic as written (docs/gpu_runs.md, run 39).
TEST(FlashAttentionBackwardEmulation, Bf16InputsX953WithinTheHonestErrorNormBound) {
  check_error_norms_within_the_honest_bound<Bf16Format, 64>({1, 2, 1, 130}, 1.6f * 953.0f, 953.0f);
}
TEST(FlashAttentionBackwardEmulation, Fp16ScaledInputsWithinTheHonestErrorNormBound) {
  check_error_norms_within_the_honest_bound<Fp16Format, 64>({1, 2, 1, 130}, 1.6f * 40.0f, 40.0f);
}

}  // namespace
