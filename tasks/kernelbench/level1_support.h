// Small helpers shared by the KernelBench level-1 tasks (tasks/kernelbench/level1_*.cpp):
// byte and flop counts, and one description of a (transposed) convolution from which both the
// reference and its costs are derived, so that the two cannot disagree on a stride or a padding.
// Header-only: each of the four level-1 translation units includes it.
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rkt/task.h"

namespace rkt::kernelbench {

using Tensors = std::vector<at::Tensor>;

inline constexpr double kFloatBytes = 4;  // [bytes per float32 element]
inline constexpr double kIndexBytes = 8;  // [bytes per int64 element] (argmax, class targets)
inline constexpr double kMaskBytes = 4;   // [bytes per int32 element] (masks, labels)

/// The size of one dim, as a double (for byte and flop counts).
inline double size_of(const Dims& dims, const char* name) {
  return static_cast<double>(dims.at(name));
}

/// The product of the named dims.
inline double count(const Dims& dims, std::initializer_list<const char*> names) {
  double product = 1;
  for (const char* name : names) product *= size_of(dims, name);
  return product;
}

/// Minimal bytes of an operator that reads `reads` and writes `writes` float32 elements.
inline double float_bytes(double reads, double writes) { return (reads + writes) * kFloatBytes; }

/// One spatial dim of a window operator (convolution or pooling), PyTorch's parameters.
struct Window {
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t dilation = 1;
  std::int64_t output_padding = 0;  ///< transposed convolutions only
};

/// Output length of a convolution or pooling window along one dim (floor mode):
/// floor((in + 2p - d(k-1) - 1) / s) + 1.
inline double window_output(double in, const Window& w) {
  return std::floor((in + 2.0 * w.padding - w.dilation * (w.kernel - 1.0) - 1.0) / w.stride) + 1.0;
}

/// Output length of a transposed convolution along one dim:
/// (in - 1)s - 2p + d(k-1) + output_padding + 1.
inline double transposed_output(double in, const Window& w) {
  return (in - 1.0) * w.stride - 2.0 * w.padding + w.dilation * (w.kernel - 1.0) +
         static_cast<double>(w.output_padding) + 1.0;
}

/// A (transposed) convolution of x (B, Cin, spatial...) as KernelBench's nn.Conv*d /
/// nn.ConvTranspose*d modules compute it. Channel dims are named; `groups` is a literal, or
/// kDepthwise (one group per input channel, as nn.Conv2d(C, C, k, groups=C)).
inline constexpr std::int64_t kDepthwise = 0;
struct Convolution {
  std::vector<std::pair<std::string, Window>> spatial;  ///< input spatial dim name and window
  std::string in_channels = "Cin";
  /// The output channels, or with `out_per_group` the output channels of one group (the size of
  /// a grouped transposed convolution's weight dim 1).
  std::string out_channels = "Cout";
  bool out_per_group = false;
  std::int64_t groups = 1;
  bool transposed = false;
  bool bias = false;  ///< whether the task passes a bias input after the weight

  /// A convolution (nn.Conv*d) over the named spatial dims, channels "Cin" -> "Cout", no bias.
  static Convolution standard(std::vector<std::pair<std::string, Window>> spatial) {
    Convolution conv;
    conv.spatial = std::move(spatial);
    return conv;
  }
  /// A transposed convolution (nn.ConvTranspose*d), channels "Cin" -> "Cout", no bias.
  static Convolution transposed_over(std::vector<std::pair<std::string, Window>> spatial) {
    Convolution conv = standard(std::move(spatial));
    conv.transposed = true;
    return conv;
  }
  Convolution with_bias() const {
    Convolution conv = *this;
    conv.bias = true;
    return conv;
  }
  /// One group per channel of dim "C", C -> C channels (nn.Conv2d(C, C, k, groups=C)).
  Convolution depthwise() const {
    Convolution conv = *this;
    conv.groups = kDepthwise;
    conv.in_channels = conv.out_channels = "C";
    return conv;
  }
  /// `count` groups; dim "CoutG" counts the output channels of one group.
  Convolution grouped(std::int64_t count) const {
    Convolution conv = *this;
    conv.groups = count;
    conv.out_channels = "CoutG";
    conv.out_per_group = true;
    return conv;
  }

  double group_count(const Dims& dims) const {
    return groups == kDepthwise ? size_of(dims, in_channels.c_str()) : static_cast<double>(groups);
  }
  double cin(const Dims& dims) const { return size_of(dims, in_channels.c_str()); }
  double cout(const Dims& dims) const {
    const double named = size_of(dims, out_channels.c_str());
    return out_per_group ? named * group_count(dims) : named;
  }
  double kernel_volume() const {
    double volume = 1;
    for (const auto& [name, window] : spatial) volume *= static_cast<double>(window.kernel);
    return volume;
  }
  double input_volume(const Dims& dims) const {
    double volume = 1;
    for (const auto& [name, window] : spatial) volume *= size_of(dims, name.c_str());
    return volume;
  }
  double output_volume(const Dims& dims) const {
    double volume = 1;
    for (const auto& [name, window] : spatial) {
      const double in = size_of(dims, name.c_str());
      volume *= transposed ? transposed_output(in, window) : window_output(in, window);
    }
    return volume;
  }
  double weight_elements(const Dims& dims) const {
    // Conv: (Cout, Cin/groups, k...); transposed: (Cin, Cout/groups, k...): the same count.
    return cin(dims) * cout(dims) / group_count(dims) * kernel_volume();
  }

  /// Minimal bytes: read x, the weight and the bias once, write y once.
  CostFunction bytes() const {
    return [conv = *this](const Dims& s) {
      const double batch = size_of(s, "B");
      return float_bytes(batch * conv.cin(s) * conv.input_volume(s) + conv.weight_elements(s) +
                             (conv.bias ? conv.cout(s) : 0.0),
                         batch * conv.cout(s) * conv.output_volume(s));
    };
  }
  /// Two flops per multiply-add: a convolution does Cin/groups * k MACs per output element, a
  /// transposed convolution Cout/groups * k per input element.
  CostFunction flops() const {
    return [conv = *this](const Dims& s) {
      const double batch = size_of(s, "B");
      const double macs =
          conv.transposed
              ? batch * conv.cin(s) * conv.input_volume(s) * conv.cout(s) / conv.group_count(s)
              : batch * conv.cout(s) * conv.output_volume(s) * conv.cin(s) / conv.group_count(s);
      return 2 * macs * conv.kernel_volume() +
             (conv.bias ? batch * conv.cout(s) * conv.output_volume(s) : 0.0);
    };
  }
  /// The reference: inputs x, weight[, bias].
  ReferenceFunction reference() const {
    return [conv = *this](const Tensors& in) {
      std::vector<std::int64_t> stride, padding, dilation, output_padding;
      for (const auto& [name, window] : conv.spatial) {
        stride.push_back(window.stride);
        padding.push_back(window.padding);
        dilation.push_back(window.dilation);
        output_padding.push_back(window.output_padding);
      }
      const std::int64_t groups = conv.groups == kDepthwise ? in[0].size(1) : conv.groups;
      const std::optional<at::Tensor> bias =
          conv.bias ? std::optional<at::Tensor>(in[2]) : std::nullopt;
      return Tensors{at::convolution(in[0], in[1], bias, stride, padding, dilation,
                                     conv.transposed, output_padding, groups)};
    };
  }
};

}  // namespace rkt::kernelbench
