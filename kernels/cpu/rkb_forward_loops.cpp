// Plain single-threaded loop kernels for robust-kbench's forward tasks (tasks/rkb_tasks.cpp), so
// that every rkb_* task has an honest CPU kernel the framework can be exercised with.
// Like reference_loops.cpp they favour clarity over speed: every reduction accumulates in double,
// intermediate activations (the conv and linear layers inside a fused task) stay in double, and
// only the final result is stored as float32.

#include <rkt/kernel.h>

#include "row_loops.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using rkt::DType;
using rkt::KernelCall;
using rkt::TensorView;
using Sizes = std::vector<std::int64_t>;

constexpr double kNormEps = 1e-5;  // LayerNorm, RMSNorm and BatchNorm eps of every rkb task
constexpr std::int64_t kTaps = 3;  // conv kernel height and width of the rkb conv tasks
constexpr std::int64_t kPool = 2;  // max-pool window and stride of the rkb pool tasks

// Throws when a view is not what these loops assume (dense row-major, expected dtype and rank),
// so that a wiring mistake is reported instead of read out of bounds.
void require_layout(const TensorView& view, DType dtype, int rank, const std::string& what) {
  if (view.dtype != dtype || view.rank != rank || !view.is_contiguous()) {
    throw std::invalid_argument("cpu_loops: unexpected layout for " + what + " (want contiguous " +
                                rkt::to_string(dtype) + " of rank " + std::to_string(rank) + ")");
  }
}

// As require_layout, and the sizes must be exactly `sizes`.
void require_shape(const TensorView& view, DType dtype, const Sizes& sizes,
                   const std::string& what) {
  require_layout(view, dtype, static_cast<int>(sizes.size()), what);
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (view.sizes[d] != sizes[d]) {
      throw std::invalid_argument("cpu_loops: " + what + " has size " +
                                  std::to_string(view.sizes[d]) + " in dim " + std::to_string(d) +
                                  ", expected " + std::to_string(sizes[d]));
    }
  }
}

// max(v, 0); NaN propagates, as in torch.relu.
double relu(double v) { return v < 0.0 ? 0.0 : v; }

// out{N} = x{K} @ weight{N,K}^T (+ bias{N} when given) for one row of a linear layer's input.
// `In` is float for a task's input and double for an intermediate activation.
template <typename In>
void linear_row(const In* x, const float* weight, const float* bias, std::int64_t k, std::int64_t n,
                double* out) {
  for (std::int64_t j = 0; j < n; ++j) {
    const float* w_row = weight + j * k;
    double acc = bias != nullptr ? static_cast<double>(bias[j]) : 0.0;
    for (std::int64_t p = 0; p < k; ++p) acc += static_cast<double>(x[p]) * w_row[p];
    out[j] = acc;
  }
}

// The sizes of a 3x3, stride-1 convolution over NCHW planes with `pad` zeros on every side.
struct ConvShape {
  std::int64_t batch, cin, h, w, cout, pad;
  std::int64_t out_h() const { return h + 2 * pad - (kTaps - 1); }
  std::int64_t out_w() const { return w + 2 * pad - (kTaps - 1); }
};

// y{B,Cout,OH,OW} = conv2d(x{B,Cin,H,W}, weight{Cout,Cin,3,3}) (+ bias{Cout} when given).
// Cross-correlation, as torch.nn.functional.conv2d; taps that fall in the padding are skipped.
template <typename In>
void conv3x3(const In* x, const float* weight, const float* bias, const ConvShape& s, double* y) {
  const std::int64_t oh_size = s.out_h();
  const std::int64_t ow_size = s.out_w();
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t co = 0; co < s.cout; ++co) {
      for (std::int64_t oh = 0; oh < oh_size; ++oh) {
        for (std::int64_t ow = 0; ow < ow_size; ++ow) {
          double acc = bias != nullptr ? static_cast<double>(bias[co]) : 0.0;
          for (std::int64_t ci = 0; ci < s.cin; ++ci) {
            const In* x_plane = x + (b * s.cin + ci) * s.h * s.w;
            const float* w_taps = weight + (co * s.cin + ci) * kTaps * kTaps;
            for (std::int64_t kh = 0; kh < kTaps; ++kh) {
              const std::int64_t ih = oh + kh - s.pad;
              if (ih < 0 || ih >= s.h) continue;
              for (std::int64_t kw = 0; kw < kTaps; ++kw) {
                const std::int64_t iw = ow + kw - s.pad;
                if (iw < 0 || iw >= s.w) continue;
                acc += static_cast<double>(x_plane[ih * s.w + iw]) * w_taps[kh * kTaps + kw];
              }
            }
          }
          y[((b * s.cout + co) * oh_size + oh) * ow_size + ow] = acc;
        }
      }
    }
  }
}

// y{planes,H/2,W/2} = max over each 2x2 window of x{planes,H,W}, stride 2, trailing rows and
// columns dropped (floor). A NaN anywhere in a window makes that output NaN, as in torch.
template <typename In>
void max_pool2x2(const In* x, std::int64_t planes, std::int64_t h, std::int64_t w, float* y) {
  const std::int64_t oh_size = h / kPool;
  const std::int64_t ow_size = w / kPool;
  for (std::int64_t p = 0; p < planes; ++p) {
    const In* x_plane = x + p * h * w;
    float* y_plane = y + p * oh_size * ow_size;
    for (std::int64_t oh = 0; oh < oh_size; ++oh) {
      for (std::int64_t ow = 0; ow < ow_size; ++ow) {
        double best = x_plane[(oh * kPool) * w + ow * kPool];
        for (std::int64_t kh = 0; kh < kPool; ++kh) {
          for (std::int64_t kw = 0; kw < kPool; ++kw) {
            const double v = x_plane[(oh * kPool + kh) * w + ow * kPool + kw];
            if (std::isnan(v) || v > best) best = v;  // once NaN, best stays NaN
          }
        }
        y_plane[oh * ow_size + ow] = static_cast<float>(best);
      }
    }
  }
}

// y{B,C,H,W} = (y - mean[c]) / sqrt(var[c] + 1e-5) * weight[c] + bias[c] in place: BatchNorm in
// inference mode, with the four per-channel views given in the task's order.
void batch_norm_inplace(double* y, std::int64_t batch, std::int64_t channels, std::int64_t plane,
                        const TensorView* params, const std::string& what) {
  const char* names[] = {"weight", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    require_shape(params[i], DType::float32, {channels}, what + " " + names[i]);
  }
  const float* weight = params[0].data_as<const float>();
  const float* bias = params[1].data_as<const float>();
  const float* mean = params[2].data_as<const float>();
  const float* var = params[3].data_as<const float>();
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t c = 0; c < channels; ++c) {
      const double inv_std = 1.0 / std::sqrt(static_cast<double>(var[c]) + kNormEps);
      double* y_plane = y + (b * channels + c) * plane;
      for (std::int64_t i = 0; i < plane; ++i) {
        y_plane[i] = (y_plane[i] - mean[c]) * inv_std * weight[c] + bias[c];
      }
    }
  }
}

// y{B,F,D1,D2} = layer_norm over (F, D1, D2) with elementwise weight and bias; biased variance,
// two passes.
void layernorm_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  require_layout(x, DType::float32, 4, "rkb_layernorm x");
  const Sizes normalized = {x.size(1), x.size(2), x.size(3)};
  require_shape(call.input(1), DType::float32, normalized, "rkb_layernorm weight");
  require_shape(call.input(2), DType::float32, normalized, "rkb_layernorm bias");
  require_shape(call.output(0), DType::float32, {x.size(0), x.size(1), x.size(2), x.size(3)},
                "rkb_layernorm y");
  const std::int64_t rows = x.size(0);
  const std::int64_t cols = x.size(1) * x.size(2) * x.size(3);
  const float* in = x.data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  const float* bi = call.input(2).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  rkt::cpu_loops::layer_norm_rows(in, w, bi, out, rows, cols, kNormEps);
}

// y{B,T,H} = x / sqrt(mean(x^2 over H) + 1e-5) * w{H}.
void llama_rmsnorm_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  require_layout(x, DType::float32, 3, "rkb_llama_rmsnorm x");
  const std::int64_t cols = x.size(2);
  require_shape(call.input(1), DType::float32, {cols}, "rkb_llama_rmsnorm w");
  require_shape(call.output(0), DType::float32, {x.size(0), x.size(1), cols},
                "rkb_llama_rmsnorm y");
  const std::int64_t rows = x.size(0) * x.size(1);
  const float* in = x.data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  rkt::cpu_loops::rms_norm_rows(in, w, out, rows, cols, kNormEps);
}

// y{..., N} = x{..., K} @ weights{N,K}^T + biases{N}, then relu when `apply_relu`; the leading
// dims of x (rank - 1 of them) are flattened into rows.
void linear_layer(KernelCall& call, int rank, bool apply_relu, const std::string& task) {
  const TensorView& x = call.input(0);
  const TensorView& weights = call.input(1);
  require_layout(x, DType::float32, rank, task + " x");
  require_layout(weights, DType::float32, 2, task + " weights");
  const std::int64_t k = x.size(-1);
  const std::int64_t n = weights.size(0);
  require_shape(weights, DType::float32, {n, k}, task + " weights");
  require_shape(call.input(2), DType::float32, {n}, task + " biases");
  Sizes y_sizes(x.sizes, x.sizes + rank);
  y_sizes.back() = n;
  require_shape(call.output(0), DType::float32, y_sizes, task + " y");
  std::int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= x.size(d);
  const float* in = x.data_as<const float>();
  const float* w = weights.data_as<const float>();
  const float* bias = call.input(2).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  std::vector<double> acc(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < rows; ++r) {
    linear_row(in + r * k, w, bias, k, n, acc.data());
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = acc[static_cast<std::size_t>(j)];
      out[r * n + j] = static_cast<float>(apply_relu ? relu(v) : v);
    }
  }
}

void mnist_linear_cpu_loops(KernelCall& call) { linear_layer(call, 2, false, "rkb_mnist_linear"); }
void mnist_linear_relu_cpu_loops(KernelCall& call) {
  linear_layer(call, 2, true, "rkb_mnist_linear_relu");
}
void unet_linear_cpu_loops(KernelCall& call) { linear_layer(call, 3, false, "rkb_unet_linear"); }

// y{B,T,H} = (silu(x @ gate_proj{U,H}^T) * (x @ up_proj{U,H}^T)) @ down_proj{H,U}^T, one token at
// a time; the hidden activation of width U stays in double.
void llama_ffw_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  require_layout(x, DType::float32, 3, "rkb_llama_ffw x");
  require_layout(call.input(1), DType::float32, 2, "rkb_llama_ffw gate_proj");
  const std::int64_t h = x.size(2);
  const std::int64_t u = call.input(1).size(0);
  require_shape(call.input(1), DType::float32, {u, h}, "rkb_llama_ffw gate_proj");
  require_shape(call.input(2), DType::float32, {u, h}, "rkb_llama_ffw up_proj");
  require_shape(call.input(3), DType::float32, {h, u}, "rkb_llama_ffw down_proj");
  require_shape(call.output(0), DType::float32, {x.size(0), x.size(1), h}, "rkb_llama_ffw y");
  const std::int64_t rows = x.size(0) * x.size(1);
  const float* in = x.data_as<const float>();
  const float* gate_w = call.input(1).data_as<const float>();
  const float* up_w = call.input(2).data_as<const float>();
  const float* down_w = call.input(3).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  std::vector<double> gate(static_cast<std::size_t>(u));
  std::vector<double> up(static_cast<std::size_t>(u));
  std::vector<double> down(static_cast<std::size_t>(h));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x_row = in + r * h;
    linear_row(x_row, gate_w, nullptr, h, u, gate.data());
    linear_row(x_row, up_w, nullptr, h, u, up.data());
    // silu(g) = g * sigmoid(g) = g / (1 + exp(-g)); the product overwrites the gate.
    for (std::size_t j = 0; j < gate.size(); ++j)
      gate[j] = gate[j] / (1.0 + std::exp(-gate[j])) * up[j];
    linear_row(gate.data(), down_w, nullptr, u, h, down.data());
    for (std::int64_t j = 0; j < h; ++j)
      out[r * h + j] = static_cast<float>(down[static_cast<std::size_t>(j)]);
  }
}

// Checks a conv task's x{B,Cin,H,W}, weights{Cout,Cin,3,3} and (when given) biases{Cout}, and
// returns the convolution's shape with `pad` zeros of padding.
ConvShape conv_shape(const TensorView& x, const TensorView& weights, const TensorView* biases,
                     std::int64_t pad, const std::string& task) {
  require_layout(x, DType::float32, 4, task + " x");
  require_layout(weights, DType::float32, 4, task + " weights");
  const ConvShape s{x.size(0), x.size(1), x.size(2), x.size(3), weights.size(0), pad};
  require_shape(weights, DType::float32, {s.cout, s.cin, kTaps, kTaps}, task + " weights");
  if (biases != nullptr) require_shape(*biases, DType::float32, {s.cout}, task + " biases");
  if (s.out_h() < 1 || s.out_w() < 1) {
    throw std::invalid_argument("cpu_loops: " + task + " input is smaller than the 3x3 kernel");
  }
  return s;
}

// y{B,Cout,(H-2)/2,(W-2)/2} = max_pool2d(relu(conv2d(x, weights, biases)), 2), no conv padding.
void mnist_conv_relu_pool_cpu_loops(KernelCall& call) {
  const std::string task = "rkb_mnist_conv_relu_pool";
  const ConvShape s = conv_shape(call.input(0), call.input(1), &call.input(2), 0, task);
  require_shape(call.output(0), DType::float32,
                {s.batch, s.cout, s.out_h() / kPool, s.out_w() / kPool}, task + " y");
  std::vector<double> conv(static_cast<std::size_t>(s.batch * s.cout * s.out_h() * s.out_w()));
  conv3x3(call.input(0).data_as<const float>(), call.input(1).data_as<const float>(),
          call.input(2).data_as<const float>(), s, conv.data());
  for (double& v : conv) v = relu(v);
  max_pool2x2(conv.data(), s.batch * s.cout, s.out_h(), s.out_w(), call.output(0).data_as<float>());
}

// y{B,C,H/2,W/2} = max_pool2d(x{B,C,H,W}, 2).
void mnist_pool_cpu_loops(KernelCall& call) {
  const TensorView& x = call.input(0);
  require_layout(x, DType::float32, 4, "rkb_mnist_pool x");
  require_shape(call.output(0), DType::float32,
                {x.size(0), x.size(1), x.size(2) / kPool, x.size(3) / kPool}, "rkb_mnist_pool y");
  max_pool2x2(x.data_as<const float>(), x.size(0) * x.size(1), x.size(2), x.size(3),
              call.output(0).data_as<float>());
}

// y{B,Cout,H,W} = conv2d(x, weights, biases), zero padding 1.
void unet_conv2d_cpu_loops(KernelCall& call) {
  const std::string task = "rkb_unet_conv2d";
  const ConvShape s = conv_shape(call.input(0), call.input(1), &call.input(2), 1, task);
  require_shape(call.output(0), DType::float32, {s.batch, s.cout, s.h, s.w}, task + " y");
  std::vector<double> conv(static_cast<std::size_t>(s.batch * s.cout * s.h * s.w));
  conv3x3(call.input(0).data_as<const float>(), call.input(1).data_as<const float>(),
          call.input(2).data_as<const float>(), s, conv.data());
  float* out = call.output(0).data_as<float>();
  for (std::size_t i = 0; i < conv.size(); ++i) out[i] = static_cast<float>(conv[i]);
}

// y = relu(bn2(conv3x3(relu(bn1(conv3x3(x))))) + x): inputs x, conv1_weight, bn1 weight, bias,
// mean, var, conv2_weight, bn2 weight, bias, mean, var. Both convolutions pad by 1, have no bias
// and keep C channels, so every intermediate has x's shape.
void resnet_block_cpu_loops(KernelCall& call) {
  const std::string task = "rkb_resnet_block";
  const TensorView& x = call.input(0);
  const ConvShape s = conv_shape(x, call.input(1), nullptr, 1, task);
  conv_shape(x, call.input(6), nullptr, 1, task);  // checks conv2_weight's shape
  if (s.cout != s.cin) throw std::invalid_argument("cpu_loops: " + task + " conv changes channels");
  require_shape(call.output(0), DType::float32, {s.batch, s.cin, s.h, s.w}, task + " y");
  const std::int64_t plane = s.h * s.w;
  const TensorView bn1[] = {call.input(2), call.input(3), call.input(4), call.input(5)};
  const TensorView bn2[] = {call.input(7), call.input(8), call.input(9), call.input(10)};
  const std::size_t count = static_cast<std::size_t>(x.numel());
  std::vector<double> first(count);
  conv3x3(x.data_as<const float>(), call.input(1).data_as<const float>(), nullptr, s, first.data());
  batch_norm_inplace(first.data(), s.batch, s.cout, plane, bn1, task + " bn1");
  for (double& v : first) v = relu(v);
  std::vector<double> second(count);
  conv3x3(first.data(), call.input(6).data_as<const float>(), nullptr, s, second.data());
  batch_norm_inplace(second.data(), s.batch, s.cout, plane, bn2, task + " bn2");
  const float* in = x.data_as<const float>();
  float* out = call.output(0).data_as<float>();
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(relu(second[i] + in[i]));
}

// loss (rank 0) = mean over b of logsumexp(predictions[b,:]) - predictions[b, targets[b]].
void mnist_cross_entropy_cpu_loops(KernelCall& call) {
  const TensorView& logits = call.input(0);
  require_layout(logits, DType::float32, 2, "rkb_mnist_cross_entropy predictions");
  const std::int64_t rows = logits.size(0);
  const std::int64_t classes = logits.size(1);
  require_shape(call.input(1), DType::int64, {rows}, "rkb_mnist_cross_entropy targets");
  require_shape(call.output(0), DType::float32, {}, "rkb_mnist_cross_entropy loss");
  const float* in = logits.data_as<const float>();
  const std::int64_t* targets = call.input(1).data_as<const std::int64_t>();
  double total = 0.0;
  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = in + b * classes;
    const std::int64_t t = rkt::cpu_loops::class_index(targets, b, classes);
    total += rkt::cpu_loops::log_sum_exp(row, classes) - static_cast<double>(row[t]);
  }
  call.output(0).data_as<float>()[0] = static_cast<float>(total / static_cast<double>(rows));
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_layernorm, cpu_loops, layernorm_cpu_loops)
    .describe("Plain loop: two-pass mean/variance over (F, D1, D2) in double");
ROBUST_KERNEL_TEST(rkb_llama_rmsnorm, cpu_loops, llama_rmsnorm_cpu_loops)
    .describe("Plain loop: mean of squares in double");
ROBUST_KERNEL_TEST(rkb_mnist_linear, cpu_loops, mnist_linear_cpu_loops)
    .describe("Plain loop: row-by-row dot products with double accumulators");
ROBUST_KERNEL_TEST(rkb_mnist_linear_relu, cpu_loops, mnist_linear_relu_cpu_loops)
    .describe("Plain loop: row-by-row dot products in double, then relu");
ROBUST_KERNEL_TEST(rkb_unet_linear, cpu_loops, unet_linear_cpu_loops)
    .describe("Plain loop: row-by-row dot products with double accumulators");
ROBUST_KERNEL_TEST(rkb_llama_ffw, cpu_loops, llama_ffw_cpu_loops)
    .describe("Plain loop: per-token gate, up and down projections, hidden kept in double");
ROBUST_KERNEL_TEST(rkb_mnist_conv_relu_pool, cpu_loops, mnist_conv_relu_pool_cpu_loops)
    .describe("Plain loop: direct 3x3 valid convolution in double, relu, 2x2 max pool");
ROBUST_KERNEL_TEST(rkb_mnist_pool, cpu_loops, mnist_pool_cpu_loops)
    .describe("Plain loop: 2x2 max pool, stride 2, NaN-propagating");
ROBUST_KERNEL_TEST(rkb_unet_conv2d, cpu_loops, unet_conv2d_cpu_loops)
    .describe("Plain loop: direct 3x3 same-padding convolution, double accumulators");
ROBUST_KERNEL_TEST(rkb_resnet_block, cpu_loops, resnet_block_cpu_loops)
    .describe("Plain loop: two direct convolutions with inference BatchNorm, all in double");
ROBUST_KERNEL_TEST(rkb_mnist_cross_entropy, cpu_loops, mnist_cross_entropy_cpu_loops)
    .describe("Plain loop: mean of max-subtracted logsumexp minus target logit, in double");
