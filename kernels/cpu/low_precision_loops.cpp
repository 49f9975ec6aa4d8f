// CPU loop kernels for the bf16 and fp16 tasks (tasks/low_precision_tasks.cpp,
// tasks/attention_tasks.cpp), so that CI runs their whole path on the CPU. Each reads its 16-bit
// inputs as float, keeps every sum in float32 (the default accumulation the tasks judge by, and
// what a tensor-core kernel's accumulator holds), and rounds each output to its format once, to
// nearest. Single-threaded, at the small dims the cases run; the dot products and the scaled row
// additions go eight floats at a time (dot_product, add_scaled), which the compiler vectorises.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <rkt/kernel.h>

#include "storage_conversion.h"

namespace {

using rkt::DType;
using rkt::KernelCall;
using rkt::TensorView;
using rkt::cpu_loops::load;
using rkt::cpu_loops::store;

// Throws when a view is not what these loops assume, so that a wiring mistake is reported
// instead of read out of bounds.
void require_view(const TensorView& view, int rank, const char* what) {
  const bool storage = view.dtype == DType::bfloat16 || view.dtype == DType::float16 ||
                       view.dtype == DType::float32;
  if (!storage || view.rank != rank || !view.is_contiguous()) {
    throw std::invalid_argument(std::string("cpu_loops: unexpected layout for ") + what +
                                " (want contiguous bf16, fp16 or float32 of rank " +
                                std::to_string(rank) + ")");
  }
}

std::vector<float> read_all(const TensorView& view) {
  std::vector<float> values(static_cast<std::size_t>(view.numel()));
  for (std::int64_t i = 0; i < view.numel(); ++i) values[static_cast<std::size_t>(i)] = load(view, i);
  return values;
}

// A float32 dot product in kDotLanes partial sums, added pairwise at the end: the compiler keeps
// the lanes in one vector register (a single running sum is a chain it may not reorder), and the
// error bound is no larger than one sequential sum's (each lane sums n / kDotLanes products).
constexpr int kDotLanes = 8;
float dot_product(const float* a, const float* b, std::int64_t n) {
  float lanes[kDotLanes] = {};
  std::int64_t c = 0;
  for (; c + kDotLanes <= n; c += kDotLanes) {
    for (int l = 0; l < kDotLanes; ++l) lanes[l] += a[c + l] * b[c + l];
  }
  for (; c < n; ++c) lanes[c % kDotLanes] += a[c] * b[c];
  for (int width = kDotLanes / 2; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

// y[c] += a * x[c] for c < n, kDotLanes at a time (the compiler makes each group one vector
// operation); every element's sum is the same as a plain loop's.
void add_scaled(float* __restrict y, float a, const float* __restrict x, std::int64_t n) {
  std::int64_t c = 0;
  for (; c + kDotLanes <= n; c += kDotLanes) {
    for (int l = 0; l < kDotLanes; ++l) y[c + l] += a * x[c + l];
  }
  for (; c < n; ++c) y[c] += a * x[c];
}

float erf_gelu(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }

// y{M,N} = gelu(a{M,K} @ b{K,N} + bias{N}): one float32 dot product per output, then the epilogue
// in float32 and a single rounding.
void matmul_bias_gelu_loops(KernelCall& call) {
  const TensorView &a = call.input(0), &b = call.input(1), &bias = call.input(2), &y = call.output(0);
  require_view(a, 2, "matmul_bias_gelu a");
  require_view(b, 2, "matmul_bias_gelu b");
  require_view(bias, 1, "matmul_bias_gelu bias");
  require_view(y, 2, "matmul_bias_gelu y");
  const std::int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const std::vector<float> av = read_all(a), bv = read_all(b), biasv = read_all(bias);
  std::vector<float> row(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (std::int64_t p = 0; p < k; ++p) {
      add_scaled(row.data(), av[static_cast<std::size_t>(i * k + p)], bv.data() + p * n, n);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      store(y, i * n + j, erf_gelu(row[static_cast<std::size_t>(j)] + biasv[static_cast<std::size_t>(j)]));
    }
  }
}

// y{B,N} = softmax over the last dim: max, then the sum of exp(x - max) in float32.
void softmax_loops(KernelCall& call) {
  const TensorView &x = call.input(0), &y = call.output(0);
  require_view(x, 2, "softmax x");
  require_view(y, 2, "softmax y");
  const std::int64_t rows = x.size(0), cols = x.size(1);
  const std::vector<float> xv = read_all(x);
  std::vector<float> e(static_cast<std::size_t>(cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = xv.data() + r * cols;
    const float row_max = *std::max_element(row, row + cols);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) sum += e[static_cast<std::size_t>(j)] = std::exp(row[j] - row_max);
    for (std::int64_t j = 0; j < cols; ++j) store(y, r * cols + j, e[static_cast<std::size_t>(j)] / sum);
  }
}

// y = (x - mean) / sqrt(var + 1e-5) * weight + bias: two passes in float32 (mean, then squared
// deviations), so rows far from zero do not cancel.
void layernorm_loops(KernelCall& call) {
  const TensorView &x = call.input(0), &w = call.input(1), &bias = call.input(2), &y = call.output(0);
  require_view(x, 2, "layernorm x");
  require_view(y, 2, "layernorm y");
  const std::int64_t rows = x.size(0), cols = x.size(1);
  const std::vector<float> xv = read_all(x), wv = read_all(w), bv = read_all(bias);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = xv.data() + r * cols;
    float sum = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) sum += row[j];
    const float mean = sum / static_cast<float>(cols);
    float squares = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) squares += (row[j] - mean) * (row[j] - mean);
    const float inv_std = 1.0f / std::sqrt(squares / static_cast<float>(cols) + 1e-5f);
    for (std::int64_t j = 0; j < cols; ++j) {
      store(y, r * cols + j, (row[j] - mean) * inv_std * wv[static_cast<std::size_t>(j)] + bv[static_cast<std::size_t>(j)]);
    }
  }
}

// y = x / sqrt(mean(x^2) + 1e-6) * weight, the sum of squares in float32.
void rmsnorm_loops(KernelCall& call) {
  const TensorView &x = call.input(0), &w = call.input(1), &y = call.output(0);
  require_view(x, 2, "rmsnorm x");
  require_view(y, 2, "rmsnorm y");
  const std::int64_t rows = x.size(0), cols = x.size(1);
  const std::vector<float> xv = read_all(x), wv = read_all(w);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = xv.data() + r * cols;
    float squares = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) squares += row[j] * row[j];
    const float inv_rms = 1.0f / std::sqrt(squares / static_cast<float>(cols) + 1e-6f);
    for (std::int64_t j = 0; j < cols; ++j) store(y, r * cols + j, row[j] * inv_rms * wv[static_cast<std::size_t>(j)]);
  }
}

// loss{B} (float32) = logsumexp(logits[b]) - logits[b, target[b]]: max, then the sum of
// exp(x - max) over the vocabulary in float32.
void cross_entropy_loops(KernelCall& call) {
  const TensorView &logits = call.input(0), &target = call.input(1), &loss = call.output(0);
  require_view(logits, 2, "cross_entropy logits");
  require_view(loss, 1, "cross_entropy loss");
  if (target.dtype != DType::int64 || target.rank != 1) {
    throw std::invalid_argument("cpu_loops: cross_entropy target must be int64 of rank 1");
  }
  const std::int64_t rows = logits.size(0), vocabulary = logits.size(1);
  const std::vector<float> xv = read_all(logits);
  const std::int64_t* targets = target.data_as<const std::int64_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = xv.data() + r * vocabulary;
    const float row_max = *std::max_element(row, row + vocabulary);
    float sum = 0.0f;
    for (std::int64_t j = 0; j < vocabulary; ++j) sum += std::exp(row[j] - row_max);
    const std::int64_t t = targets[r];
    if (t < 0 || t >= vocabulary) throw std::out_of_range("cpu_loops: cross_entropy target out of range");
    store(loss, r, row_max + std::log(sum) - row[t]);
  }
}

void gelu_loops(KernelCall& call) {
  const TensorView &x = call.input(0), &y = call.output(0);
  require_view(x, 2, "gelu x");
  require_view(y, 2, "gelu y");
  for (std::int64_t i = 0; i < x.numel(); ++i) store(y, i, erf_gelu(load(x, i)));
}

void silu_loops(KernelCall& call) {
  const TensorView &x = call.input(0), &y = call.output(0);
  require_view(x, 2, "silu x");
  require_view(y, 2, "silu y");
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const float v = load(x, i);
    store(y, i, v / (1.0f + std::exp(-v)));
  }
}

// The shape of an attention call: q [B,H,S,D], k and v [B,G,S,D].
struct AttentionShape {
  std::int64_t batch, heads, kv_heads, seq, dim;
  std::int64_t q_index(std::int64_t b, std::int64_t h, std::int64_t i) const {
    return ((b * heads + h) * seq + i) * dim;
  }
  std::int64_t kv_index(std::int64_t b, std::int64_t h, std::int64_t j) const {
    return ((b * kv_heads + h / (heads / kv_heads)) * seq + j) * dim;  // query head h reads h / (H / G)
  }
};

AttentionShape attention_shape(const KernelCall& call) {
  const TensorView &q = call.input(0), &k = call.input(1), &v = call.input(2);
  require_view(q, 4, "attention q");
  require_view(k, 4, "attention k");
  require_view(v, 4, "attention v");
  const AttentionShape shape{q.size(0), q.size(1), k.size(1), q.size(2), q.size(3)};
  if (shape.kv_heads < 1 || shape.heads % shape.kv_heads != 0 || k.size(2) != shape.seq ||
      k.size(3) != shape.dim) {
    throw std::invalid_argument("cpu_loops: attention needs H % G == 0 and k, v shaped [B, G, S, D]");
  }
  return shape;
}

// o = softmax(q k^T / sqrt(D) [+ causal mask]) v, per query row: the scores in float32, their max,
// the sum of exp(score - max) and the weighted sum of the values in float32.
void attention_forward(KernelCall& call, bool causal) {
  const AttentionShape s = attention_shape(call);
  const std::vector<float> q = read_all(call.input(0)), k = read_all(call.input(1)),
                           v = read_all(call.input(2));
  const TensorView& o = call.output(0);
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.dim));
  std::vector<float> p(static_cast<std::size_t>(s.seq)), acc(static_cast<std::size_t>(s.dim));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads; ++h) {
      for (std::int64_t i = 0; i < s.seq; ++i) {
        const std::int64_t keys = causal ? i + 1 : s.seq;  // query i sees key j iff j <= i
        const float* qi = q.data() + s.q_index(b, h, i);
        float row_max = -INFINITY;
        for (std::int64_t j = 0; j < keys; ++j) {
          const float dot = dot_product(qi, k.data() + s.kv_index(b, h, j), s.dim);
          p[static_cast<std::size_t>(j)] = dot * scale;
          row_max = std::max(row_max, p[static_cast<std::size_t>(j)]);
        }
        float sum = 0.0f;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (std::int64_t j = 0; j < keys; ++j) {
          const float e = std::exp(p[static_cast<std::size_t>(j)] - row_max);
          sum += e;
          add_scaled(acc.data(), e, v.data() + s.kv_index(b, h, j), s.dim);
        }
        for (std::int64_t c = 0; c < s.dim; ++c) store(o, s.q_index(b, h, i) + c, acc[static_cast<std::size_t>(c)] / sum);
      }
    }
  }
}

void attention_loops(KernelCall& call) { attention_forward(call, /*causal=*/false); }
void attention_causal_loops(KernelCall& call) { attention_forward(call, /*causal=*/true); }

// The gradients of causal attention given grad_o, recomputing the probabilities per query row:
// dP = grad_o v^T, dS = P (dP - rowsum(P dP)), grad_q = dS k / sqrt(D), grad_k += dS^T q / sqrt(D),
// grad_v += P^T grad_o; a kv head's gradients sum over the H / G query heads that read it. Every
// sum in float32; each gradient rounded once when stored.
void attention_causal_backward_loops(KernelCall& call) {
  const AttentionShape s = attention_shape(call);
  const std::vector<float> q = read_all(call.input(0)), k = read_all(call.input(1)),
                           v = read_all(call.input(2)), grad_o = read_all(call.input(3));
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.dim));
  std::vector<float> grad_q(q.size(), 0.0f), grad_k(k.size(), 0.0f), grad_v(v.size(), 0.0f);
  std::vector<float> p(static_cast<std::size_t>(s.seq)), dp(static_cast<std::size_t>(s.seq));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t h = 0; h < s.heads; ++h) {
      for (std::int64_t i = 0; i < s.seq; ++i) {
        const std::int64_t keys = i + 1;
        const float* qi = q.data() + s.q_index(b, h, i);
        const float* gi = grad_o.data() + s.q_index(b, h, i);
        float row_max = -INFINITY;
        for (std::int64_t j = 0; j < keys; ++j) {
          const float dot = dot_product(qi, k.data() + s.kv_index(b, h, j), s.dim);
          p[static_cast<std::size_t>(j)] = dot * scale;
          row_max = std::max(row_max, p[static_cast<std::size_t>(j)]);
        }
        float sum = 0.0f;
        for (std::int64_t j = 0; j < keys; ++j) sum += p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - row_max);
        float p_dot_dp = 0.0f;
        for (std::int64_t j = 0; j < keys; ++j) {
          p[static_cast<std::size_t>(j)] /= sum;
          const float dot = dot_product(gi, v.data() + s.kv_index(b, h, j), s.dim);
          dp[static_cast<std::size_t>(j)] = dot;
          p_dot_dp += p[static_cast<std::size_t>(j)] * dot;
        }
        float* gqi = grad_q.data() + s.q_index(b, h, i);
        for (std::int64_t j = 0; j < keys; ++j) {
          const float pj = p[static_cast<std::size_t>(j)];
          const float ds = pj * (dp[static_cast<std::size_t>(j)] - p_dot_dp) * scale;
          const std::int64_t kv = s.kv_index(b, h, j);
          add_scaled(gqi, ds, k.data() + kv, s.dim);
          add_scaled(grad_k.data() + kv, ds, qi, s.dim);
          add_scaled(grad_v.data() + kv, pj, gi, s.dim);
        }
      }
    }
  }
  const std::vector<float>* gradients[] = {&grad_q, &grad_k, &grad_v};
  for (std::size_t out = 0; out < 3; ++out) {
    const TensorView& view = call.output(out);
    for (std::int64_t i = 0; i < view.numel(); ++i) store(view, i, (*gradients[out])[static_cast<std::size_t>(i)]);
  }
}

}  // namespace

#define RKT_LOW_PRECISION_LOOPS(stem, function, what)                                     \
  ROBUST_KERNEL_TEST(stem##_bf16, cpu_loops, function).describe(what ", fp32 accumulation"); \
  ROBUST_KERNEL_TEST(stem##_fp16, cpu_loops, function).describe(what ", fp32 accumulation")

RKT_LOW_PRECISION_LOOPS(matmul_bias_gelu, matmul_bias_gelu_loops, "one float32 dot product per output, fused bias + GELU");
RKT_LOW_PRECISION_LOOPS(softmax, softmax_loops, "row max, then exp and sum");
RKT_LOW_PRECISION_LOOPS(layernorm, layernorm_loops, "two-pass mean and variance");
RKT_LOW_PRECISION_LOOPS(rmsnorm, rmsnorm_loops, "sum of squares per row");
RKT_LOW_PRECISION_LOOPS(cross_entropy, cross_entropy_loops, "row max, then log-sum-exp");
RKT_LOW_PRECISION_LOOPS(gelu, gelu_loops, "erf GELU per element");
RKT_LOW_PRECISION_LOOPS(silu, silu_loops, "x * sigmoid(x) per element");
RKT_LOW_PRECISION_LOOPS(attention, attention_loops, "scores, row max, exp-sum and P V per query");
RKT_LOW_PRECISION_LOOPS(attention_causal, attention_causal_loops, "scores, row max, exp-sum and P V per query, keys j <= i");
ROBUST_KERNEL_TEST(attention_causal_bf16_backward, cpu_loops, attention_causal_backward_loops)
    .describe("probabilities recomputed per query row, fp32 accumulation");
ROBUST_KERNEL_TEST(attention_causal_fp16_backward, cpu_loops, attention_causal_backward_loops)
    .describe("probabilities recomputed per query row, fp32 accumulation");
