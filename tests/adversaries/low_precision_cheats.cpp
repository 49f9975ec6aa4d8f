// Low-precision cheats on the bf16 tasks (tasks/low_precision_tasks.cpp, attention_tasks.cpp)
// that must be caught, and honest controls that must pass (tests/unit/low_precision_cheats_test.cpp):
//   matmul_bias_gelu_bf16: a bf16 accumulator claiming the default fp32 one (caught: sqrt(K) times
//     the storage bound), the same loop declaring .accumulates_in(bf16) (passes its wider bound),
//     fp8 e4m3 products claiming bf16 (caught), and the same loop with a float32 accumulator (passes).
//   softmax_bf16: an honest kernel whose repeated calls differ by one bf16 ulp (passes the
//     determinism gate, which compares calls at the output format's tolerance) and one that
//     computes nothing when called again on the same inputs (caught by it).
//   attention_bf16 / attention_causal_bf16: exp without the running max (overflows at x3), a causal
//     mask off by one, a kernel right only when S is a multiple of 64 (drops the last partial tile
//     of keys), and an honest online-softmax kernel over 64-key tiles with float32 statistics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rkt/kernel.h"
#include "../../kernels/cpu/storage_conversion.h"

namespace {

using rkt::DType;
using rkt::KernelCall;
using rkt::TensorView;
using rkt::cpu_loops::load;
using rkt::cpu_loops::round_to;
using rkt::cpu_loops::store;

std::vector<float> read_all(const TensorView& view) {
  std::vector<float> values(static_cast<std::size_t>(view.numel()));
  for (std::int64_t i = 0; i < view.numel(); ++i) values[static_cast<std::size_t>(i)] = load(view, i);
  return values;
}

float erf_gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }

// --- GEMM: the accumulator and the products ---------------------------------------------------

enum class Accumulator { fp32, bf16 };

// `value` rounded to fp8 e4m3 (3 mantissa bits, exponent bias 7, largest 448, subnormals from
// 2^-6 in steps of 2^-9), to nearest, saturating at 448 as fp8 GEMMs convert.
float round_to_e4m3(float value) {
  const float magnitude = std::fabs(value);
  if (!std::isfinite(value) || magnitude == 0) return value;
  int exponent = 0;
  std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
  const float step = magnitude < std::ldexp(1.0f, -6) ? std::ldexp(1.0f, -9) : std::ldexp(1.0f, exponent - 4);
  const float rounded = std::min(std::nearbyint(magnitude / step) * step, 448.0f);
  return std::copysign(rounded, value);
}

// A tensor as an fp8 GEMM sees it: scaled so its largest magnitude maps to e4m3's 448 (one scale
// per tensor, as fp8 training recipes do), rounded to e4m3, scaled back.
std::vector<float> through_e4m3(std::vector<float> values) {
  float largest = 0;
  for (float v : values) largest = std::max(largest, std::fabs(v));
  if (largest == 0) return values;
  const float scale = 448.0f / largest;
  for (float& v : values) v = round_to_e4m3(v * scale) / scale;
  return values;
}

// y = gelu(a @ b + bias), one product at a time into an accumulator of the given format.
template <Accumulator kAccumulator, bool kFp8Products>
void matmul_bias_gelu_loop(KernelCall& call) {
  const TensorView &a = call.input(0), &b = call.input(1), &y = call.output(0);
  const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<float> av = read_all(a), bv = read_all(b);
  const std::vector<float> bias = read_all(call.input(2));
  if (kFp8Products) {
    av = through_e4m3(std::move(av));
    bv = through_e4m3(std::move(bv));
  }
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        sum += av[static_cast<std::size_t>(i * k + p)] * bv[static_cast<std::size_t>(p * n + j)];
        if (kAccumulator == Accumulator::bf16) sum = round_to(DType::bfloat16, sum);
      }
      store(y, i * n + j, erf_gelu(sum + bias[static_cast<std::size_t>(j)]));
    }
  }
}

// --- Attention: the softmax's statistics, the mask, the tail ------------------------------------

enum class AttentionFlaw {
  none,                ///< online softmax over 64-key tiles, float32 running max and sum
  no_running_max,      ///< exp(score) summed as is: overflows once a score passes 88.7
  mask_off_by_one,     ///< query i sees keys j <= i + 1
  whole_tiles_only,    ///< keys past the last whole 64-key tile are dropped
};

constexpr std::int64_t kKeyTile = 64;  // [keys per tile]

template <AttentionFlaw kFlaw, bool kCausal>
void attention_tiles(KernelCall& call) {
  const TensorView &qt = call.input(0), &kt = call.input(1), &vt = call.input(2), &o = call.output(0);
  const std::int64_t batch = qt.size(0), heads = qt.size(1), seq = qt.size(2), dim = qt.size(3);
  const std::int64_t kv_heads = kt.size(1), group = heads / kv_heads;
  const std::vector<float> q = read_all(qt), k = read_all(kt), v = read_all(vt);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dim));
  std::vector<float> acc(static_cast<std::size_t>(dim));
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::int64_t kv_base = (b * kv_heads + h / group) * seq * dim;
      for (std::int64_t i = 0; i < seq; ++i) {
        const float* qi = q.data() + ((b * heads + h) * seq + i) * dim;
        std::int64_t keys = seq;
        if (kCausal) keys = kFlaw == AttentionFlaw::mask_off_by_one ? std::min(seq, i + 2) : i + 1;
        if (kFlaw == AttentionFlaw::whole_tiles_only) keys = keys / kKeyTile * kKeyTile;
        float running_max = kFlaw == AttentionFlaw::no_running_max ? 0.0f : -INFINITY;
        float running_sum = 0;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (std::int64_t tile = 0; tile < keys; tile += kKeyTile) {
          const std::int64_t end = std::min(keys, tile + kKeyTile);
          float scores[kKeyTile];
          float tile_max = -INFINITY;
          for (std::int64_t j = tile; j < end; ++j) {
            const float* kj = k.data() + kv_base + j * dim;
            float dot = 0;
            for (std::int64_t c = 0; c < dim; ++c) dot += qi[c] * kj[c];
            scores[j - tile] = dot * scale;
            tile_max = std::max(tile_max, scores[j - tile]);
          }
          if (kFlaw != AttentionFlaw::no_running_max && tile_max > running_max) {
            // A new maximum: rescale what was summed so far (online softmax).
            const float rescale = std::exp(running_max - tile_max);
            running_sum *= rescale;
            for (float& a : acc) a *= rescale;
            running_max = tile_max;
          }
          for (std::int64_t j = tile; j < end; ++j) {
            const float e = std::exp(scores[j - tile] - running_max);
            running_sum += e;
            const float* vj = v.data() + kv_base + j * dim;
            for (std::int64_t c = 0; c < dim; ++c) acc[static_cast<std::size_t>(c)] += e * vj[c];
          }
        }
        const std::int64_t out = ((b * heads + h) * seq + i) * dim;
        for (std::int64_t c = 0; c < dim; ++c) store(o, out + c, acc[static_cast<std::size_t>(c)] / running_sum);
      }
    }
  }
}

// --- Run-to-run variation: what atomics give an honest kernel, and a memoising cheat ----------

// Softmax over each row in float32, stored in y's format.
void softmax_rows(const TensorView& x, const TensorView& y) {
  const std::int64_t rows = x.size(0), columns = x.size(1);
  for (std::int64_t r = 0; r < rows; ++r) {
    float largest = -INFINITY, sum = 0.0f;
    for (std::int64_t c = 0; c < columns; ++c) largest = std::max(largest, load(x, r * columns + c));
    for (std::int64_t c = 0; c < columns; ++c) sum += std::exp(load(x, r * columns + c) - largest);
    for (std::int64_t c = 0; c < columns; ++c) {
      store(y, r * columns + c, std::exp(load(x, r * columns + c) - largest) / sum);
    }
  }
}

// Honest, not bit-reproducible: every other call stores each row's first element one unit in the
// last place higher, as a kernel whose atomic sums land in another order does.
void softmax_an_ulp_apart(KernelCall& call) {
  static int calls = 0;
  const TensorView& y = call.output(0);
  softmax_rows(call.input(0), y);
  if (++calls % 2 == 0) {
    std::uint16_t* bits = y.data_as<std::uint16_t>();  // positive finite values: +1 is the next one up
    for (std::int64_t r = 0; r < y.size(0); ++r) bits[r * y.size(1)] += 1;
  }
}

// Remembers the inputs' address and computes nothing when called on it again (the output keeps
// whatever its buffer held): right on a first call, wrong on every repeat.
void softmax_memoised_by_address(KernelCall& call) {
  static const void* last = nullptr;
  const void* address = call.input(0).data_as<const void>();
  if (address == last) return;
  last = address;
  softmax_rows(call.input(0), call.output(0));
}

}  // namespace

ROBUST_KERNEL_TEST(softmax_bf16, an_ulp_apart_between_calls, softmax_an_ulp_apart)
    .describe("honest control: float32 softmax, every other call one bf16 ulp apart (atomics' order)");
ROBUST_KERNEL_TEST(softmax_bf16, memoised_by_address, softmax_memoised_by_address)
    .describe("computes nothing when called again on the same input address");

ROBUST_KERNEL_TEST(matmul_bias_gelu_bf16, fp32_accumulator, (matmul_bias_gelu_loop<Accumulator::fp32, false>))
    .describe("honest control: products summed one by one into a float32 accumulator");
ROBUST_KERNEL_TEST(matmul_bias_gelu_bf16, bf16_accumulator_claims_fp32, (matmul_bias_gelu_loop<Accumulator::bf16, false>))
    .describe("the accumulator rounded to bf16 after every product, declared as the default fp32");
ROBUST_KERNEL_TEST(matmul_bias_gelu_bf16, bf16_accumulator_declared, (matmul_bias_gelu_loop<Accumulator::bf16, false>))
    .accumulates_in(rkt::Precision::bf16)
    .describe("honest control: the same bf16 accumulator, declared with accumulates_in(bf16)");
ROBUST_KERNEL_TEST(matmul_bias_gelu_bf16, fp8_e4m3_products, (matmul_bias_gelu_loop<Accumulator::fp32, true>))
    .describe("inputs rounded to fp8 e4m3 (per-tensor scale) while claiming bf16 inputs, float32 sums");

ROBUST_KERNEL_TEST(attention_bf16, online_softmax, (attention_tiles<AttentionFlaw::none, false>))
    .describe("honest control: online softmax over 64-key tiles, float32 running max, sum and P V");
ROBUST_KERNEL_TEST(attention_causal_bf16, online_softmax, (attention_tiles<AttentionFlaw::none, true>))
    .describe("honest control: online softmax over 64-key tiles, keys j <= i");
ROBUST_KERNEL_TEST(attention_bf16, no_running_max, (attention_tiles<AttentionFlaw::no_running_max, false>))
    .describe("exp(score) summed without subtracting any max");
ROBUST_KERNEL_TEST(attention_causal_bf16, mask_off_by_one, (attention_tiles<AttentionFlaw::mask_off_by_one, true>))
    .describe("query i sees keys j <= i + 1");
ROBUST_KERNEL_TEST(attention_bf16, whole_tiles_only, (attention_tiles<AttentionFlaw::whole_tiles_only, false>))
    .describe("keys past the last whole 64-key tile dropped: right only when S % 64 == 0");
