// Shared pieces of KernelBench level 2's tasks (tasks/kernelbench/level2_*.cpp): sizes of
// convolution and pooling outputs for the byte and flop counts, and the normalisations in the
// form KernelBench's modules compute them (training mode: batch statistics).
//
// Header-only, in its own namespace: level 1's tasks have a support header of their own, and both
// are linked into the same binary.
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <initializer_list>
#include <vector>

#include "rkt/task.h"

namespace kb_level2 {

using rkt::Dims;
namespace values = rkt::values;
using Tensors = std::vector<at::Tensor>;

constexpr double kFloatBytes = 4;    // [bytes per float32 element]
constexpr double kNormEps = 1e-5;    // PyTorch's default eps of BatchNorm, GroupNorm, LayerNorm,
                                     // InstanceNorm; no level-2 problem changes it
constexpr double kNormMomentum = 0.1;  // BatchNorm's default; unused by batch statistics

/// The size of dim `name`, as a double (for byte and flop counts).
inline double size(const Dims& dims, const char* name) { return static_cast<double>(dims.at(name)); }

/// The product of the named dims.
inline double count(const Dims& dims, std::initializer_list<const char*> names) {
  double product = 1;
  for (const char* name : names) product *= size(dims, name);
  return product;
}

/// Output length of a convolution along one dim (dilation 1).
inline double conv_out(double n, double kernel, double stride = 1, double padding = 0) {
  return std::floor((n + 2 * padding - kernel) / stride) + 1;
}

/// Output length of a transposed convolution along one dim (dilation 1).
inline double conv_transpose_out(double n, double kernel, double stride = 1, double padding = 0,
                                 double output_padding = 0) {
  return (n - 1) * stride - 2 * padding + kernel + output_padding;
}

/// Output length of a pooling window of size `kernel` with stride `kernel`, no padding.
inline double pool_out(double n, double kernel) { return std::floor(n / kernel); }

/// nn.BatchNorm*d in training mode: normalised with the batch's statistics (biased variance)
/// over every dim but the channel (dim 1). KernelBench's forward also updates the running
/// statistics in place; outputs do not depend on them, so the reference leaves them alone.
inline at::Tensor batch_norm_training(const at::Tensor& x, const at::Tensor& weight,
                                      const at::Tensor& bias, double eps = kNormEps) {
  return at::batch_norm(x, weight, bias, /*running_mean=*/{}, /*running_var=*/{},
                        /*training=*/true, kNormMomentum, eps, /*cudnn_enabled=*/false);
}

/// nn.InstanceNorm*d with its defaults (no affine parameters, no running statistics):
/// each (sample, channel) normalised over its spatial dims.
inline at::Tensor instance_norm(const at::Tensor& x, double eps = kNormEps) {
  return at::instance_norm(x, /*weight=*/{}, /*bias=*/{}, /*running_mean=*/{}, /*running_var=*/{},
                           /*use_input_stats=*/true, kNormMomentum, eps, /*cudnn_enabled=*/false);
}

/// nn.GroupNorm(groups, C) on (B, C, ...).
inline at::Tensor group_norm(const at::Tensor& x, int64_t groups, const at::Tensor& weight,
                             const at::Tensor& bias, double eps = kNormEps) {
  return at::group_norm(x, groups, weight, bias, eps);
}

/// x * sigmoid(x) (swish, SiLU), written as KernelBench writes it.
inline at::Tensor swish(const at::Tensor& x) { return x * at::sigmoid(x); }

/// Flops of a linear layer (B, K) x (N, K)^T.
inline double linear_flops(const Dims& dims, const char* batch, const char* in, const char* out) {
  return 2 * size(dims, batch) * size(dims, in) * size(dims, out);
}

}  // namespace kb_level2
