// Straightforward single-threaded loop kernels, one per task, so that CI can exercise the whole
// framework (registry, harness, comparison against the float64 reference) on the CPU alone.
// They favour clarity over speed: every reduction accumulates in double and stores float32, which
// keeps them well inside the strict fp32 tolerance at every size and magnitude.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <rkt/kernel.h>

#include "row_loops.h"

namespace {

using rkt::DType;
using rkt::KernelCall;
using rkt::TensorView;

// Throws when a view is not what these loops assume (dense row-major, expected dtype and rank),
// so that a wiring mistake is reported instead of read out of bounds.
void require_view(const TensorView& view, DType dtype, int rank, const char* what) {
  if (view.dtype != dtype || view.rank != rank || !view.is_contiguous()) {
    throw std::invalid_argument(std::string("cpu_loops: unexpected layout for ") + what +
                                " (want contiguous " + rkt::to_string(dtype) + " of rank " +
                                std::to_string(rank) + ")");
  }
}

// y{B,N} = max(x, 0). NaN propagates, as in torch.relu.
void relu_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "relu x");
  require_view(y, DType::float32, 2, "relu y");
  const float* in = x.data_as<const float>();
  float* out = y.data_as<float>();
  const std::int64_t n = x.numel();
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] < 0.0f ? 0.0f : in[i];
}

// y{B} = sum of x{B,N} over dim 1.
void sum_dim_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "sum_dim x");
  require_view(y, DType::float32, 1, "sum_dim y");
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  const float* in = x.data_as<const float>();
  float* out = y.data_as<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = in + b * cols;
    double sum = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) sum += row[j];
    out[b] = static_cast<float>(sum);
  }
}

// y{B,N} = softmax of x over the last dim, with the row maximum subtracted first.
void softmax_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "softmax x");
  require_view(y, DType::float32, 2, "softmax y");
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  const float* in = x.data_as<const float>();
  float* out = y.data_as<float>();
  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = in + b * cols;
    float* out_row = out + b * cols;
    double row_max = row[0];
    for (std::int64_t j = 1; j < cols; ++j) {
      row_max = std::max(row_max, static_cast<double>(row[j]));
    }
    double sum = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(static_cast<double>(row[j]) - row_max);
    for (std::int64_t j = 0; j < cols; ++j) {
      out_row[j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - row_max) / sum);
    }
  }
}

// y{B,N} = (x - mean) / sqrt(var + 1e-5) * weight + bias per row; biased variance, two passes.
void layernorm_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& weight = call.input(1);
  const TensorView& bias = call.input(2);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "layernorm x");
  require_view(weight, DType::float32, 1, "layernorm weight");
  require_view(bias, DType::float32, 1, "layernorm bias");
  require_view(y, DType::float32, 2, "layernorm y");
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  const float* in = x.data_as<const float>();
  const float* w = weight.data_as<const float>();
  const float* bi = bias.data_as<const float>();
  float* out = y.data_as<float>();
  constexpr double kEps = 1e-5;
  rkt::cpu_loops::layer_norm_rows(in, w, bi, out, rows, cols, kEps);
}

// y{B,N} = x / sqrt(mean(x^2 over the row) + 1e-6) * weight.
void rmsnorm_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& weight = call.input(1);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "rmsnorm x");
  require_view(weight, DType::float32, 1, "rmsnorm weight");
  require_view(y, DType::float32, 2, "rmsnorm y");
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1);
  const float* in = x.data_as<const float>();
  const float* w = weight.data_as<const float>();
  float* out = y.data_as<float>();
  constexpr double kEps = 1e-6;
  rkt::cpu_loops::rms_norm_rows(in, w, out, rows, cols, kEps);
}

// C{M,N} = A{M,K} @ B{K,N}. i-k-j order over a double accumulator row, so B is read row by row.
void matmul_cpu_loops(KernelCall& call) {
  const TensorView& a = call.input(0);
  const TensorView& bm = call.input(1);
  const TensorView& c = call.output(0);
  require_view(a, DType::float32, 2, "matmul A");
  require_view(bm, DType::float32, 2, "matmul B");
  require_view(c, DType::float32, 2, "matmul C");
  const std::int64_t m = a.size(0);
  const std::int64_t k = a.size(1);
  const std::int64_t n = bm.size(1);
  if (bm.size(0) != k || c.size(0) != m || c.size(1) != n) {
    throw std::invalid_argument("cpu_loops: matmul shapes do not agree");
  }
  const float* pa = a.data_as<const float>();
  const float* pb = bm.data_as<const float>();
  float* pc = c.data_as<float>();
  std::vector<double> acc(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = pa[i * k + p];
      const float* b_row = pb + p * n;
      for (std::int64_t j = 0; j < n; ++j) acc[static_cast<std::size_t>(j)] += aip * b_row[j];
    }
    for (std::int64_t j = 0; j < n; ++j) {
      pc[i * n + j] = static_cast<float>(acc[static_cast<std::size_t>(j)]);
    }
  }
}

// y{B,Cout,H,W} = conv2d(x{B,Cin,H,W}, w{Cout,Cin,3,3}) + b{Cout}; stride 1, zero padding 1.
// Cross-correlation, as torch.nn.functional.conv2d.
void conv2d_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& w = call.input(1);
  const TensorView& bias = call.input(2);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 4, "conv2d x");
  require_view(w, DType::float32, 4, "conv2d w");
  require_view(bias, DType::float32, 1, "conv2d b");
  require_view(y, DType::float32, 4, "conv2d y");
  const std::int64_t batch = x.size(0);
  const std::int64_t cin = x.size(1);
  const std::int64_t h = x.size(2);
  const std::int64_t wd = x.size(3);
  const std::int64_t cout = w.size(0);
  if (w.size(1) != cin || w.size(2) != 3 || w.size(3) != 3 || bias.size(0) != cout ||
      y.size(0) != batch || y.size(1) != cout || y.size(2) != h || y.size(3) != wd) {
    throw std::invalid_argument("cpu_loops: conv2d shapes do not agree");
  }
  const float* px = x.data_as<const float>();
  const float* pw = w.data_as<const float>();
  const float* pbias = bias.data_as<const float>();
  float* py = y.data_as<float>();
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t co = 0; co < cout; ++co) {
      for (std::int64_t oh = 0; oh < h; ++oh) {
        for (std::int64_t ow = 0; ow < wd; ++ow) {
          double acc = pbias[co];
          for (std::int64_t ci = 0; ci < cin; ++ci) {
            const float* x_plane = px + (b * cin + ci) * h * wd;
            const float* w_tap = pw + (co * cin + ci) * 9;
            for (std::int64_t kh = 0; kh < 3; ++kh) {
              const std::int64_t ih = oh + kh - 1;
              if (ih < 0 || ih >= h) continue;
              for (std::int64_t kw = 0; kw < 3; ++kw) {
                const std::int64_t iw = ow + kw - 1;
                if (iw < 0 || iw >= wd) continue;
                acc += static_cast<double>(x_plane[ih * wd + iw]) * w_tap[kh * 3 + kw];
              }
            }
          }
          py[((b * cout + co) * h + oh) * wd + ow] = static_cast<float>(acc);
        }
      }
    }
  }
}

// loss (rank 0) = mean over b of logsumexp(logits[b,:]) - logits[b, target[b]].
void cross_entropy_cpu_loops(KernelCall& call) {
  const TensorView& logits = call.input(0);
  const TensorView& target = call.input(1);
  const TensorView& loss = call.output(0);
  require_view(logits, DType::float32, 2, "cross_entropy logits");
  require_view(target, DType::int64, 1, "cross_entropy target");
  require_view(loss, DType::float32, 0, "cross_entropy loss");
  const std::int64_t rows = logits.size(0);
  const std::int64_t classes = logits.size(1);
  if (target.size(0) != rows) {
    throw std::invalid_argument("cpu_loops: cross_entropy target length differs from batch");
  }
  const float* in = logits.data_as<const float>();
  const std::int64_t* tgt = target.data_as<const std::int64_t>();
  double total = 0.0;
  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = in + b * classes;
    const std::int64_t t = rkt::cpu_loops::class_index(tgt, b, classes);
    total += rkt::cpu_loops::log_sum_exp(row, classes) - static_cast<double>(row[t]);
  }
  loss.data_as<float>()[0] = static_cast<float>(total / static_cast<double>(rows));
}

// y{B,N} = x * keep / 0.9, with the keep mask (int32, 0 or 1) the framework drew.
void dropout_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  const TensorView& keep = call.input(1);
  const TensorView& y = call.output(0);
  require_view(x, DType::float32, 2, "dropout x");
  require_view(keep, DType::int32, 2, "dropout keep");
  require_view(y, DType::float32, 2, "dropout y");
  constexpr double kKeepProbability = 0.9;
  const float* in = x.data_as<const float>();
  const std::int32_t* mask = keep.data_as<const std::int32_t>();
  float* out = y.data_as<float>();
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    out[i] = mask[i] != 0 ? static_cast<float>(in[i] / kKeepProbability) : 0.0f;
  }
}

}  // namespace

ROBUST_KERNEL_TEST(dropout, cpu_loops, dropout_cpu_loops)
    .describe("Plain loop: applies the given keep mask, scales by 1/0.9");
ROBUST_KERNEL_TEST(relu, cpu_loops, relu_cpu_loops).describe("Plain loop: max(x, 0)");
ROBUST_KERNEL_TEST(sum_dim, cpu_loops, sum_dim_cpu_loops)
    .describe("Plain loop: row sums accumulated in double");
ROBUST_KERNEL_TEST(softmax, cpu_loops, softmax_cpu_loops)
    .describe("Plain loop: max-subtracted softmax, sums in double");
ROBUST_KERNEL_TEST(layernorm, cpu_loops, layernorm_cpu_loops)
    .describe("Plain loop: two-pass mean/variance in double");
ROBUST_KERNEL_TEST(rmsnorm, cpu_loops, rmsnorm_cpu_loops)
    .describe("Plain loop: mean of squares in double");
ROBUST_KERNEL_TEST(matmul, cpu_loops, matmul_cpu_loops)
    .describe("Plain loop: i-k-j matmul with double accumulators");
ROBUST_KERNEL_TEST(conv2d, cpu_loops, conv2d_cpu_loops)
    .describe("Plain loop: direct 3x3 same-padding convolution, double accumulators");
ROBUST_KERNEL_TEST(cross_entropy, cpu_loops, cross_entropy_cpu_loops)
    .describe("Plain loop: mean of max-subtracted logsumexp minus target logit, in double");
