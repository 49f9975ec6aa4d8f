// Straightforward single-threaded loop kernels for the backward tasks of robust-kbench's tasks
// (tasks/rkb_tasks.cpp), so that CI can check those tasks end to end on the CPU alone.
// A backward task's inputs are its forward task's inputs followed by one cotangent per forward
// output (grad_<output>); its outputs are the gradients of the floating forward inputs, in the
// forward input order (framework/registry/backward_task.cpp). Every sum accumulates in double and is
// stored as float32, which keeps these kernels inside the strict fp32 tolerance at any scale.

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
using Shape = std::vector<std::int64_t>;

constexpr double kLayerNormEps = 1e-5;  // as rkb_layernorm
constexpr double kRmsNormEps = 1e-5;    // as rkb_llama_rmsnorm
constexpr std::int64_t kPool = 2;       // max-pool window and stride of the mnist tasks

std::string format_shape(const Shape& sizes) {
  std::string text = "(";
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    text += (d == 0 ? "" : ", ") + std::to_string(sizes[d]);
  }
  return text + ")";
}

[[noreturn]] void throw_layout(const char* what, DType dtype, const std::string& want) {
  throw std::invalid_argument(std::string("cpu_loops: unexpected layout for ") + what +
                              " (want contiguous " + rkt::to_string(dtype) + " " + want + ")");
}

// Checks that `view` is a dense row-major tensor of `dtype` and rank `rank`, and returns its
// sizes. Each kernel takes its dims from its first input and checks every other view against
// them, so that a wiring mistake is reported instead of read or written out of bounds.
Shape require_rank(const TensorView& view, DType dtype, int rank, const char* what) {
  if (view.dtype != dtype || view.rank != rank || !view.is_contiguous()) {
    throw_layout(what, dtype, "of rank " + std::to_string(rank));
  }
  return Shape(view.sizes, view.sizes + view.rank);
}

// Checks that `view` is a dense row-major tensor of `dtype` with exactly the given sizes.
void require_view(const TensorView& view, DType dtype, const Shape& sizes, const char* what) {
  bool matches =
      view.dtype == dtype && view.rank == static_cast<int>(sizes.size()) && view.is_contiguous();
  for (int d = 0; matches && d < view.rank; ++d) matches = view.size(d) == sizes[d];
  if (!matches) throw_layout(what, dtype, "of shape " + format_shape(sizes));
}

std::int64_t product(Shape::const_iterator first, Shape::const_iterator last) {
  std::int64_t n = 1;
  for (; first != last; ++first) n *= *first;
  return n;
}

// Rounds double accumulators to the float32 output.
void store(const std::vector<double>& values, float* out) {
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
}

// ---- Normalisations ----------------------------------------------------------------------------

// y = (x - mean) / sqrt(var + eps) * weight + bias over the last three dims of x{B,F,D1,D2}.
// With n = x_hat and g_hat = grad_y * weight, per row of F*D1*D2 elements:
//   grad_x = (g_hat - mean(g_hat) - n * mean(g_hat * n)) / sqrt(var + eps),
//   grad_weight = sum over B of grad_y * n,  grad_bias = sum over B of grad_y.
void layernorm_backward_cpu_loops(KernelCall& call) {
  const Shape x_shape = require_rank(call.input(0), DType::float32, 4, "layernorm x");
  const Shape param_shape(x_shape.begin() + 1, x_shape.end());
  require_view(call.input(1), DType::float32, param_shape, "layernorm weight");
  require_view(call.input(2), DType::float32, param_shape, "layernorm bias");
  require_view(call.input(3), DType::float32, x_shape, "layernorm grad_y");
  require_view(call.output(0), DType::float32, x_shape, "layernorm grad_x");
  require_view(call.output(1), DType::float32, param_shape, "layernorm grad_weight");
  require_view(call.output(2), DType::float32, param_shape, "layernorm grad_bias");
  const std::int64_t rows = x_shape[0];
  const std::int64_t cols = product(param_shape.begin(), param_shape.end());
  const float* x = call.input(0).data_as<const float>();
  const float* weight = call.input(1).data_as<const float>();
  const float* grad_y = call.input(3).data_as<const float>();
  float* grad_x = call.output(0).data_as<float>();

  const auto cols_d = static_cast<double>(cols);
  std::vector<double> normed(static_cast<std::size_t>(cols));
  std::vector<double> grad_weight(static_cast<std::size_t>(cols), 0.0);
  std::vector<double> grad_bias(static_cast<std::size_t>(cols), 0.0);
  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = x + b * cols;
    const float* g = grad_y + b * cols;
    double sum = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) sum += row[j];
    const double mean = sum / cols_d;
    double squares = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double d = static_cast<double>(row[j]) - mean;
      squares += d * d;
    }
    const double inv_std = 1.0 / std::sqrt(squares / cols_d + kLayerNormEps);
    double sum_g_hat = 0.0;
    double sum_g_hat_normed = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto jj = static_cast<std::size_t>(j);
      normed[jj] = (static_cast<double>(row[j]) - mean) * inv_std;
      const double g_hat = static_cast<double>(g[j]) * weight[j];
      sum_g_hat += g_hat;
      sum_g_hat_normed += g_hat * normed[jj];
      grad_weight[jj] += static_cast<double>(g[j]) * normed[jj];
      grad_bias[jj] += g[j];
    }
    const double mean_g_hat = sum_g_hat / cols_d;
    const double mean_g_hat_normed = sum_g_hat_normed / cols_d;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double g_hat = static_cast<double>(g[j]) * weight[j];
      grad_x[b * cols + j] = static_cast<float>(
          inv_std * (g_hat - mean_g_hat - normed[static_cast<std::size_t>(j)] * mean_g_hat_normed));
    }
  }
  store(grad_weight, call.output(1).data_as<float>());
  store(grad_bias, call.output(2).data_as<float>());
}

// y = x * r * w with r = 1 / sqrt(mean(x^2 over H) + eps), x{B,T,H}, w{H}. Per row:
//   grad_x = r * grad_y * w - x * r^3 * mean(grad_y * w * x),
//   grad_w = sum over rows of grad_y * x * r.
void llama_rmsnorm_backward_cpu_loops(KernelCall& call) {
  const Shape x_shape = require_rank(call.input(0), DType::float32, 3, "rmsnorm x");
  const Shape w_shape = {x_shape[2]};
  require_view(call.input(1), DType::float32, w_shape, "rmsnorm w");
  require_view(call.input(2), DType::float32, x_shape, "rmsnorm grad_y");
  require_view(call.output(0), DType::float32, x_shape, "rmsnorm grad_x");
  require_view(call.output(1), DType::float32, w_shape, "rmsnorm grad_w");
  const std::int64_t rows = x_shape[0] * x_shape[1];
  const std::int64_t cols = x_shape[2];
  const float* x = call.input(0).data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  const float* grad_y = call.input(2).data_as<const float>();
  float* grad_x = call.output(0).data_as<float>();

  const auto cols_d = static_cast<double>(cols);
  std::vector<double> grad_w(static_cast<std::size_t>(cols), 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    const float* g = grad_y + r * cols;
    double squares = 0.0;
    double sum_g_w_x = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double v = row[j];
      squares += v * v;
      sum_g_w_x += static_cast<double>(g[j]) * w[j] * v;
    }
    const double inv_rms = 1.0 / std::sqrt(squares / cols_d + kRmsNormEps);
    const double correction = inv_rms * inv_rms * inv_rms * sum_g_w_x / cols_d;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double v = row[j];
      grad_x[r * cols + j] =
          static_cast<float>(inv_rms * static_cast<double>(g[j]) * w[j] - v * correction);
      grad_w[static_cast<std::size_t>(j)] += static_cast<double>(g[j]) * v * inv_rms;
    }
  }
  store(grad_w, call.output(1).data_as<float>());
}

// ---- Linear layers -----------------------------------------------------------------------------

// The three linear tasks: y = x @ weights^T + biases, optionally followed by relu, where x has
// any number of leading dims (flattened to M rows) and a last dim K, weights is {N, K}.
//   grad_x{M,K} = dz @ weights,  grad_weights{N,K} = dz^T @ x,  grad_biases{N} = sum over M of dz,
// with dz = grad_y, or, after a relu, grad_y where the pre-activation is > 0 (relu'(0) = 0, as in
// torch).
void linear_backward(KernelCall& call, int x_rank, bool through_relu) {
  const Shape x_shape = require_rank(call.input(0), DType::float32, x_rank, "linear x");
  const std::int64_t k = x_shape.back();
  const std::int64_t m = product(x_shape.begin(), x_shape.end() - 1);
  const TensorView& weights_view = call.input(1);
  if (weights_view.rank != 2) throw_layout("linear weights", DType::float32, "of rank 2");
  const std::int64_t n = weights_view.size(0);
  Shape y_shape = x_shape;
  y_shape.back() = n;
  require_view(weights_view, DType::float32, {n, k}, "linear weights");
  require_view(call.input(2), DType::float32, {n}, "linear biases");
  require_view(call.input(3), DType::float32, y_shape, "linear grad_y");
  require_view(call.output(0), DType::float32, x_shape, "linear grad_x");
  require_view(call.output(1), DType::float32, {n, k}, "linear grad_weights");
  require_view(call.output(2), DType::float32, {n}, "linear grad_biases");
  const float* x = call.input(0).data_as<const float>();
  const float* weights = weights_view.data_as<const float>();
  const float* biases = call.input(2).data_as<const float>();
  const float* grad_y = call.input(3).data_as<const float>();

  // dz{M,N}: the gradient at the pre-activation.
  std::vector<double> dz(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t o = 0; o < n; ++o) {
      double keep = 1.0;
      if (through_relu) {
        double z = biases[o];
        for (std::int64_t p = 0; p < k; ++p) {
          z += static_cast<double>(x[i * k + p]) * weights[o * k + p];
        }
        keep = z > 0.0 ? 1.0 : 0.0;
      }
      dz[static_cast<std::size_t>(i * n + o)] = keep * grad_y[i * n + o];
    }
  }

  // grad_x, row by row: i-o-p order over a double accumulator row, so weights is read by rows.
  float* grad_x = call.output(0).data_as<float>();
  std::vector<double> acc(static_cast<std::size_t>(k));
  for (std::int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::int64_t o = 0; o < n; ++o) {
      const double d = dz[static_cast<std::size_t>(i * n + o)];
      const float* w_row = weights + o * k;
      for (std::int64_t p = 0; p < k; ++p) acc[static_cast<std::size_t>(p)] += d * w_row[p];
    }
    for (std::int64_t p = 0; p < k; ++p) {
      grad_x[i * k + p] = static_cast<float>(acc[static_cast<std::size_t>(p)]);
    }
  }

  // grad_weights and grad_biases, one output feature at a time, reading x by rows.
  float* grad_weights = call.output(1).data_as<float>();
  float* grad_biases = call.output(2).data_as<float>();
  for (std::int64_t o = 0; o < n; ++o) {
    std::fill(acc.begin(), acc.end(), 0.0);
    double bias_sum = 0.0;
    for (std::int64_t i = 0; i < m; ++i) {
      const double d = dz[static_cast<std::size_t>(i * n + o)];
      bias_sum += d;
      const float* x_row = x + i * k;
      for (std::int64_t p = 0; p < k; ++p) acc[static_cast<std::size_t>(p)] += d * x_row[p];
    }
    for (std::int64_t p = 0; p < k; ++p) {
      grad_weights[o * k + p] = static_cast<float>(acc[static_cast<std::size_t>(p)]);
    }
    grad_biases[o] = static_cast<float>(bias_sum);
  }
}

void mnist_linear_backward_cpu_loops(KernelCall& call) { linear_backward(call, 2, false); }
void mnist_linear_relu_backward_cpu_loops(KernelCall& call) { linear_backward(call, 2, true); }
void unet_linear_backward_cpu_loops(KernelCall& call) { linear_backward(call, 3, false); }

// ---- Convolutions and pooling ------------------------------------------------------------------

// Gradient of a 2x2 stride-2 max pool (floor mode) over one h x w plane: each pooled gradient
// goes to the first maximum of its window in row-major order, as PyTorch does (a NaN counts as
// a maximum, also as PyTorch does); rows and columns the floor leaves out get zero.
void max_pool_backward_plane(const double* values, std::int64_t h, std::int64_t w,
                             const float* grad_pooled, double* grad_values) {
  std::fill(grad_values, grad_values + h * w, 0.0);
  const std::int64_t pooled_h = h / kPool;
  const std::int64_t pooled_w = w / kPool;
  for (std::int64_t ph = 0; ph < pooled_h; ++ph) {
    for (std::int64_t pw = 0; pw < pooled_w; ++pw) {
      std::int64_t best = ph * kPool * w + pw * kPool;
      for (std::int64_t dh = 0; dh < kPool; ++dh) {
        for (std::int64_t dw = 0; dw < kPool; ++dw) {
          const std::int64_t at = (ph * kPool + dh) * w + pw * kPool + dw;
          if (values[at] > values[best] || std::isnan(values[at])) best = at;
        }
      }
      grad_values[best] += grad_pooled[ph * pooled_w + pw];
    }
  }
}

// y = max_pool2d(relu(conv2d(x{B,Cin,H,W}, weights{Cout,Cin,3,3}) + biases{Cout}), 2), no padding.
// Per (b, co) plane: recompute the convolution z, route grad_y through the pool onto relu(z),
// keep it where z > 0, then scatter it into grad_x, grad_weights and grad_biases.
void mnist_conv_relu_pool_backward_cpu_loops(KernelCall& call) {
  const Shape x_shape = require_rank(call.input(0), DType::float32, 4, "conv x");
  const std::int64_t batch = x_shape[0];
  const std::int64_t cin = x_shape[1];
  const std::int64_t h = x_shape[2];
  const std::int64_t w = x_shape[3];
  const TensorView& weights_view = call.input(1);
  if (weights_view.rank != 4) throw_layout("conv weights", DType::float32, "of rank 4");
  const std::int64_t cout = weights_view.size(0);
  const Shape w_shape = {cout, cin, 3, 3};
  const std::int64_t conv_h = h - 2;
  const std::int64_t conv_w = w - 2;
  if (conv_h < 1 || conv_w < 1) throw std::invalid_argument("cpu_loops: conv input below 3x3");
  require_view(weights_view, DType::float32, w_shape, "conv weights");
  require_view(call.input(2), DType::float32, {cout}, "conv biases");
  require_view(call.input(3), DType::float32, {batch, cout, conv_h / kPool, conv_w / kPool},
               "conv grad_y");
  require_view(call.output(0), DType::float32, x_shape, "conv grad_x");
  require_view(call.output(1), DType::float32, w_shape, "conv grad_weights");
  require_view(call.output(2), DType::float32, {cout}, "conv grad_biases");
  const float* x = call.input(0).data_as<const float>();
  const float* weights = weights_view.data_as<const float>();
  const float* biases = call.input(2).data_as<const float>();
  const float* grad_y = call.input(3).data_as<const float>();
  const std::int64_t plane = h * w;
  const std::int64_t conv_plane = conv_h * conv_w;
  const std::int64_t pooled_plane = (conv_h / kPool) * (conv_w / kPool);

  std::vector<double> z(static_cast<std::size_t>(conv_plane));
  std::vector<double> relu_z(static_cast<std::size_t>(conv_plane));
  std::vector<double> dz(static_cast<std::size_t>(conv_plane));
  std::vector<double> grad_x(static_cast<std::size_t>(cin * plane));
  std::vector<double> grad_weights(static_cast<std::size_t>(cout * cin * 9), 0.0);
  std::vector<double> grad_biases(static_cast<std::size_t>(cout), 0.0);
  for (std::int64_t b = 0; b < batch; ++b) {
    const float* x_b = x + b * cin * plane;
    std::fill(grad_x.begin(), grad_x.end(), 0.0);
    for (std::int64_t co = 0; co < cout; ++co) {
      const float* w_co = weights + co * cin * 9;
      for (std::int64_t oh = 0; oh < conv_h; ++oh) {
        for (std::int64_t ow = 0; ow < conv_w; ++ow) {
          double acc = biases[co];
          for (std::int64_t ci = 0; ci < cin; ++ci) {
            for (std::int64_t kh = 0; kh < 3; ++kh) {
              for (std::int64_t kw = 0; kw < 3; ++kw) {
                acc += static_cast<double>(x_b[ci * plane + (oh + kh) * w + ow + kw]) *
                       w_co[(ci * 3 + kh) * 3 + kw];
              }
            }
          }
          const auto at = static_cast<std::size_t>(oh * conv_w + ow);
          z[at] = acc;
          relu_z[at] = acc < 0.0 ? 0.0 : acc;
        }
      }
      max_pool_backward_plane(relu_z.data(), conv_h, conv_w,
                              grad_y + (b * cout + co) * pooled_plane, dz.data());
      for (std::size_t at = 0; at < dz.size(); ++at) {
        if (!(z[at] > 0.0)) dz[at] = 0.0;
      }
      for (std::int64_t oh = 0; oh < conv_h; ++oh) {
        for (std::int64_t ow = 0; ow < conv_w; ++ow) {
          const double d = dz[static_cast<std::size_t>(oh * conv_w + ow)];
          grad_biases[static_cast<std::size_t>(co)] += d;
          for (std::int64_t ci = 0; ci < cin; ++ci) {
            for (std::int64_t kh = 0; kh < 3; ++kh) {
              for (std::int64_t kw = 0; kw < 3; ++kw) {
                const std::int64_t x_at = ci * plane + (oh + kh) * w + ow + kw;
                const std::int64_t w_at = (ci * 3 + kh) * 3 + kw;
                grad_weights[static_cast<std::size_t>(co * cin * 9 + w_at)] += d * x_b[x_at];
                grad_x[static_cast<std::size_t>(x_at)] += d * w_co[w_at];
              }
            }
          }
        }
      }
    }
    float* grad_x_b = call.output(0).data_as<float>() + b * cin * plane;
    for (std::size_t i = 0; i < grad_x.size(); ++i) grad_x_b[i] = static_cast<float>(grad_x[i]);
  }
  store(grad_weights, call.output(1).data_as<float>());
  store(grad_biases, call.output(2).data_as<float>());
}

// y = max_pool2d(x{B,C,H,W}, 2): each plane's pooled gradient goes to its windows' first maxima.
void mnist_pool_backward_cpu_loops(KernelCall& call) {
  const Shape x_shape = require_rank(call.input(0), DType::float32, 4, "pool x");
  const std::int64_t planes = x_shape[0] * x_shape[1];
  const std::int64_t h = x_shape[2];
  const std::int64_t w = x_shape[3];
  require_view(call.input(1), DType::float32, {x_shape[0], x_shape[1], h / kPool, w / kPool},
               "pool grad_y");
  require_view(call.output(0), DType::float32, x_shape, "pool grad_x");
  const float* x = call.input(0).data_as<const float>();
  const float* grad_y = call.input(1).data_as<const float>();
  float* grad_x = call.output(0).data_as<float>();
  const std::int64_t plane = h * w;
  const std::int64_t pooled_plane = (h / kPool) * (w / kPool);

  // Float to double is exact, so comparing the widened values picks the same maxima.
  std::vector<double> values(static_cast<std::size_t>(plane));
  std::vector<double> grad_values(static_cast<std::size_t>(plane));
  for (std::int64_t p = 0; p < planes; ++p) {
    std::copy(x + p * plane, x + (p + 1) * plane, values.begin());
    max_pool_backward_plane(values.data(), h, w, grad_y + p * pooled_plane, grad_values.data());
    for (std::int64_t i = 0; i < plane; ++i) {
      grad_x[p * plane + i] = static_cast<float>(grad_values[static_cast<std::size_t>(i)]);
    }
  }
}

// ---- Loss --------------------------------------------------------------------------------------

// loss = mean over b of logsumexp(predictions[b,:]) - predictions[b, targets[b]], so
//   grad_predictions[b, c] = grad_loss * (softmax(predictions[b,:])[c] - (c == targets[b])) / B.
void mnist_cross_entropy_backward_cpu_loops(KernelCall& call) {
  const Shape p_shape = require_rank(call.input(0), DType::float32, 2, "cross_entropy predictions");
  const std::int64_t rows = p_shape[0];
  const std::int64_t classes = p_shape[1];
  require_view(call.input(1), DType::int64, {rows}, "cross_entropy targets");
  require_view(call.input(2), DType::float32, {}, "cross_entropy grad_loss");
  require_view(call.output(0), DType::float32, p_shape, "cross_entropy grad_predictions");
  const float* predictions = call.input(0).data_as<const float>();
  const std::int64_t* targets = call.input(1).data_as<const std::int64_t>();
  const double scale =
      static_cast<double>(call.input(2).data_as<const float>()[0]) / static_cast<double>(rows);
  float* grad = call.output(0).data_as<float>();

  for (std::int64_t b = 0; b < rows; ++b) {
    const float* row = predictions + b * classes;
    const std::int64_t t = rkt::cpu_loops::class_index(targets, b, classes);
    const double lse = rkt::cpu_loops::log_sum_exp(row, classes);
    for (std::int64_t j = 0; j < classes; ++j) {
      const double softmax = std::exp(static_cast<double>(row[j]) - lse);
      grad[b * classes + j] = static_cast<float>(scale * (softmax - (j == t ? 1.0 : 0.0)));
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_layernorm_backward, cpu_loops, layernorm_backward_cpu_loops)
    .describe("Plain loop: per-row statistics and gradient means in double");
ROBUST_KERNEL_TEST(rkb_llama_rmsnorm_backward, cpu_loops, llama_rmsnorm_backward_cpu_loops)
    .describe("Plain loop: per-row mean of squares and projection term in double");
ROBUST_KERNEL_TEST(rkb_mnist_linear_backward, cpu_loops, mnist_linear_backward_cpu_loops)
    .describe("Plain loop: dy @ W and dy^T @ x with double accumulator rows");
ROBUST_KERNEL_TEST(rkb_mnist_linear_relu_backward, cpu_loops, mnist_linear_relu_backward_cpu_loops)
    .describe("Plain loop: relu mask from the recomputed pre-activation, then linear backward");
ROBUST_KERNEL_TEST(rkb_unet_linear_backward, cpu_loops, unet_linear_backward_cpu_loops)
    .describe("Plain loop: linear backward over B*T flattened rows, double accumulators");
ROBUST_KERNEL_TEST(rkb_mnist_conv_relu_pool_backward, cpu_loops,
                   mnist_conv_relu_pool_backward_cpu_loops)
    .describe("Plain loop: recomputed conv, first-max pool routing, relu mask, direct scatter");
ROBUST_KERNEL_TEST(rkb_mnist_pool_backward, cpu_loops, mnist_pool_backward_cpu_loops)
    .describe("Plain loop: gradient to each window's first maximum, zeros elsewhere");
ROBUST_KERNEL_TEST(rkb_mnist_cross_entropy_backward, cpu_loops,
                   mnist_cross_entropy_backward_cpu_loops)
    .describe("Plain loop: (softmax - onehot) * grad_loss / B, softmax in double");
