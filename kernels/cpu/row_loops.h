// row_loops.h: the row computations (RMSNorm, LayerNorm, log-sum-exp) that the CPU loop kernels
// share (reference_loops.cpp, rkb_forward_loops.cpp, rkb_backward_loops.cpp), in double, so that
// tasks computing the same thing use one copy of it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rkt::cpu_loops {

// y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w for each of `rows` rows of `cols`.
inline void rms_norm_rows(const float* x, const float* w, float* y, std::int64_t rows,
                          std::int64_t cols, double eps) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float* out_row = y + r * cols;
    double squares = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double v = row[j];
      squares += v * v;
    }
    const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
    for (std::int64_t j = 0; j < cols; ++j) {
      out_row[j] = static_cast<float>(static_cast<double>(row[j]) * inv_rms * w[j]);
    }
  }
}

// y[r, j] = (x[r, j] - mean_r) / sqrt(var_r + eps) * w[j] + b[j] over rows of `cols`; biased
// variance, two passes (mean, then squared deviations).
inline void layer_norm_rows(const float* x, const float* w, const float* b, float* y,
                            std::int64_t rows, std::int64_t cols, double eps) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * cols;
    float* out_row = y + r * cols;
    double sum = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) sum += row[j];
    const double mean = sum / static_cast<double>(cols);
    double squares = 0.0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const double d = static_cast<double>(row[j]) - mean;
      squares += d * d;
    }
    const double inv_std = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
    for (std::int64_t j = 0; j < cols; ++j) {
      const double normed = (static_cast<double>(row[j]) - mean) * inv_std;
      out_row[j] = static_cast<float>(normed * w[j] + b[j]);
    }
  }
}

// log(sum(exp(row))) over `n` values, with the row maximum subtracted first.
inline double log_sum_exp(const float* row, std::int64_t n) {
  double row_max = row[0];
  for (std::int64_t j = 1; j < n; ++j) row_max = std::max(row_max, static_cast<double>(row[j]));
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(row[j]) - row_max);
  return row_max + std::log(sum);
}

// targets[b], checked to be a class index below `classes`.
inline std::int64_t class_index(const std::int64_t* targets, std::int64_t b, std::int64_t classes) {
  const std::int64_t t = targets[b];
  if (t < 0 || t >= classes) {
    throw std::out_of_range("cpu_loops: cross_entropy target index " + std::to_string(t) +
                            " is outside [0, " + std::to_string(classes) + ")");
  }
  return t;
}

}  // namespace rkt::cpu_loops
