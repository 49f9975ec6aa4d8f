// Brittle kernels: each is right on the inputs a naive benchmark shows it and wrong elsewhere.
// The framework must fail each one in the right case, with a message that says why
// (tests/unit/adversary_test.cpp checks that).
#include <cmath>
#include <cstdint>
#include <random>

#include "rkt/kernel.h"

namespace {

// Correct only for non-negative inputs: returns x. Under KernelBench's torch.rand inputs it would
// pass; the relu task draws normal inputs (the task filter flags U[0, 1) for this reason).
void relu_identity(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.input(0).numel(); ++i) y[i] = x[i];
}

// Computes exp in half precision without subtracting the row max, claiming fp16: fine at x1,
// overflows (65504 is half's largest value) once inputs are scaled x3.
void softmax_half_exp(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    // Each exp is rounded to half (its range is the point); the sum is kept in float, as the fp16
    // class means (half inputs, float32 accumulation), so that x1 passes.
    float sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += static_cast<_Float16>(std::exp(x[r * n + j]));
    for (std::int64_t j = 0; j < n; ++j) {
      const _Float16 e = static_cast<_Float16>(std::exp(x[r * n + j]));
      y[r * n + j] = static_cast<float>(e) / sum;
    }
  }
}

// Adds a fixed epsilon (1e-5 on top of the task's 1e-6): invisible at unit scale, a 5% error
// when inputs are scaled x0.01 and mean(x^2) is 1e-4.
void rmsnorm_fixed_epsilon(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  const float* w = call.input(1).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double mean_square = 0;
    for (std::int64_t j = 0; j < n; ++j) mean_square += double(x[r * n + j]) * x[r * n + j];
    mean_square /= static_cast<double>(n);
    const double inverse = 1.0 / std::sqrt(mean_square + 1e-6 + 1e-5);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = static_cast<float>(x[r * n + j] * inverse * w[j]);
  }
}

// Guards on the test shape: computes softmax only when the input is 37 x 300 (the CPU test
// size) and returns a plausible-looking uniform distribution otherwise.
void softmax_shape_guard(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  const bool test_shape = rows == 37 && n == 300;
  for (std::int64_t r = 0; r < rows; ++r) {
    double max = x[r * n], sum = 0;
    for (std::int64_t j = 0; j < n; ++j) max = std::fmax(max, x[r * n + j]);
    for (std::int64_t j = 0; j < n; ++j) sum += std::exp(x[r * n + j] - max);
    for (std::int64_t j = 0; j < n; ++j) {
      y[r * n + j] = test_shape ? static_cast<float>(std::exp(x[r * n + j] - max) / sum)
                                : 1.0f / static_cast<float>(n);
    }
  }
}

// Sums rows in chunks of 32 and drops the tail: correct only when N is a multiple of 32
// (the CPU test size is 512).
void sum_dim_multiple_of_32(rkt::KernelCall& call) {
  const std::int64_t rows = call.input(0).size(0), n = call.input(0).size(1);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::int64_t chunk = 0; chunk + 32 <= n; chunk += 32) {
      for (std::int64_t j = chunk; j < chunk + 32; ++j) sum += x[r * n + j];
    }
    y[r] = static_cast<float>(sum);
  }
}

// Dropout that draws its own mask (p = 0.1, a fixed-seed generator): statistically a dropout, but
// not the one the reference computes with the mask it was given.
void dropout_own_mask(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  std::mt19937 generator(2026);
  std::bernoulli_distribution keep(0.9);
  for (std::int64_t i = 0; i < call.input(0).numel(); ++i) {
    y[i] = keep(generator) ? static_cast<float>(x[i] / 0.9) : 0.0f;
  }
}

// Dropout that ignores the mask: the expected value of the output, without the noise.
void dropout_ignores_mask(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.input(0).numel(); ++i) y[i] = x[i];
}

// robust-kbench's layernorm initialises weight to ones and bias to zeros: a kernel that skips
// the affine step passes that config. The task's "random" init config catches it.
void layernorm_without_affine(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const std::int64_t rows = x.size(0), n = x.numel() / rows;
  const float* in = x.data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (std::int64_t j = 0; j < n; ++j) mean += in[r * n + j];
    mean /= static_cast<double>(n);
    for (std::int64_t j = 0; j < n; ++j) var += (in[r * n + j] - mean) * (in[r * n + j] - mean);
    const double rstd = 1 / std::sqrt(var / static_cast<double>(n) + 1e-5);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = static_cast<float>((in[r * n + j] - mean) * rstd);
  }
}

// A linear backward that computes the weight and bias gradients but leaves grad_x at zero
// (robust-kbench's mnist_linear did not compare grad_x; here every input gradient is compared).
void linear_backward_without_grad_x(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const std::int64_t batch = x.size(0), in = x.size(1), out = call.input(1).size(0);
  const float* xs = x.data_as<const float>();
  const float* grad_y = call.input(3).data_as<const float>();
  float* grad_x = call.output(0).data_as<float>();
  float* grad_w = call.output(1).data_as<float>();
  float* grad_b = call.output(2).data_as<float>();
  for (std::int64_t i = 0; i < batch * in; ++i) grad_x[i] = 0.0f;
  for (std::int64_t o = 0; o < out; ++o) {
    double bias_sum = 0;
    for (std::int64_t b = 0; b < batch; ++b) bias_sum += grad_y[b * out + o];
    grad_b[o] = static_cast<float>(bias_sum);
    for (std::int64_t k = 0; k < in; ++k) {
      double sum = 0;
      for (std::int64_t b = 0; b < batch; ++b) sum += grad_y[b * out + o] * xs[b * in + k];
      grad_w[o * in + k] = static_cast<float>(sum);
    }
  }
}

}  // namespace

ROBUST_KERNEL_TEST(dropout, draws_own_mask, dropout_own_mask)
    .describe("draws its own Bernoulli(0.9) mask instead of applying the given one");
ROBUST_KERNEL_TEST(dropout, ignores_mask, dropout_ignores_mask)
    .describe("returns x: the mean of dropout, ignoring the mask");
ROBUST_KERNEL_TEST(rkb_layernorm, without_affine, layernorm_without_affine)
    .describe("skips weight and bias: right only for robust-kbench's ones/zeros init");
ROBUST_KERNEL_TEST(rkb_mnist_linear_backward, without_grad_x, linear_backward_without_grad_x)
    .describe("leaves grad_x at zero");
ROBUST_KERNEL_TEST(relu, brittle_identity, relu_identity)
    .describe("returns x: right only for non-negative inputs");
ROBUST_KERNEL_TEST(softmax, brittle_half_exp, softmax_half_exp)
    .precision(rkt::Precision::fp16)
    .describe("exp in half precision without max subtraction: overflows at x3");
ROBUST_KERNEL_TEST(rmsnorm, brittle_fixed_epsilon, rmsnorm_fixed_epsilon)
    .describe("adds a fixed 1e-5 to mean(x^2): breaks at x0.01");
ROBUST_KERNEL_TEST(softmax, brittle_shape_guard, softmax_shape_guard)
    .describe("correct only at the 37 x 300 test shape");
ROBUST_KERNEL_TEST(sum_dim, brittle_multiple_of_32, sum_dim_multiple_of_32)
    .describe("drops the tail of rows whose length is not a multiple of 32");
