// How a task's input values are drawn.
#pragma once

#include <cstdint>
#include <string>

namespace rkt {

/// The law an input's values are drawn from, before a test distribution scales them.
struct ValueDistribution {
  enum class Kind {
    normal,           ///< N(mean, stddev)
    uniform,          ///< U[low, high), e.g. KernelBench's torch.rand: U[0, 1)
    kaiming_uniform,  ///< U[-b, b], b = sqrt(6 / fan_in)  (He et al., gain sqrt(2))
    xavier_uniform,   ///< U[-b, b], b = sqrt(6 / (fan_in + fan_out))
    integers,         ///< integers in [low, value of dim `high_dim` or high): index data
    constant,         ///< every element equals `mean` (e.g. BatchNorm's ones and zeros)
    fan_in_uniform,   ///< U[-b, b], b = 1 / sqrt(fan_in): PyTorch's default Linear/Conv init
    xavier_normal,    ///< N(0, s), s = sqrt(2 / (fan_in + fan_out))  (xavier_normal_, gain 1)
    bernoulli,        ///< 1 with probability `mean`, else 0: a mask, never scaled or negated
  };
  /// A matrix structure imposed on the last two dims after drawing (KernelBench's symmetric and
  /// triangular operands). Scaling keeps it; the replay gate re-imposes it after changing values.
  enum class Structure { dense, symmetric, upper_triangular, lower_triangular };
  Kind kind = Kind::normal;
  Structure structure = Structure::dense;
  double mean = 0, stddev = 1;  // normal
  double low = 0, high = 1;     // uniform, integers
  /// kaiming/xavier: the product of these dims is fan_in; xavier also uses fan_out.
  std::string fan_in_dims, fan_out_dims;
  /// integers: when set, the exclusive upper bound is this dim's size (e.g. the class count).
  std::string high_dim;

  std::string describe() const;      ///< the law and its structure, e.g. "symmetric(uniform[0, 1))"
  std::string describe_law() const;  ///< the law alone
};

namespace values {
inline ValueDistribution normal(double mean = 0, double stddev = 1) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::normal;
  d.mean = mean;
  d.stddev = stddev;
  return d;
}
inline ValueDistribution uniform(double low = 0, double high = 1) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::uniform;
  d.low = low;
  d.high = high;
  return d;
}
/// `fan_in_dims` is a comma-separated list of dim names or literals, e.g. "Cin,3,3".
inline ValueDistribution kaiming_uniform(std::string fan_in_dims) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::kaiming_uniform;
  d.fan_in_dims = std::move(fan_in_dims);
  return d;
}
inline ValueDistribution xavier_uniform(std::string fan_in_dims, std::string fan_out_dims) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::xavier_uniform;
  d.fan_in_dims = std::move(fan_in_dims);
  d.fan_out_dims = std::move(fan_out_dims);
  return d;
}
/// Every element equal to `value`.
inline ValueDistribution constant(double value) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::constant;
  d.mean = value;
  d.stddev = 0;
  return d;
}
/// PyTorch's default weight and bias init of nn.Linear and nn.Conv2d (kaiming_uniform_ with
/// a = sqrt(5)): U[-1/sqrt(fan_in), 1/sqrt(fan_in)].
inline ValueDistribution fan_in_uniform(std::string fan_in_dims) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::fan_in_uniform;
  d.fan_in_dims = std::move(fan_in_dims);
  return d;
}
inline ValueDistribution xavier_normal(std::string fan_in_dims, std::string fan_out_dims) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::xavier_normal;
  d.fan_in_dims = std::move(fan_in_dims);
  d.fan_out_dims = std::move(fan_out_dims);
  return d;
}
/// A keep mask: 1 with probability `keep_probability`, else 0 (int32).
inline ValueDistribution bernoulli(double keep_probability) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::bernoulli;
  d.mean = keep_probability;
  return d;
}
/// Class indices in [0, size of `high_dim`).
inline ValueDistribution class_index(std::string high_dim) {
  ValueDistribution d;
  d.kind = ValueDistribution::Kind::integers;
  d.low = 0;
  d.high_dim = std::move(high_dim);
  return d;
}
/// `law` made symmetric: (X + X^T) / 2 over the last two dims.
inline ValueDistribution symmetric(ValueDistribution law) {
  law.structure = ValueDistribution::Structure::symmetric;
  return law;
}
/// `law` with zeros below the diagonal of the last two dims (torch.triu).
inline ValueDistribution upper_triangular(ValueDistribution law) {
  law.structure = ValueDistribution::Structure::upper_triangular;
  return law;
}
/// `law` with zeros above the diagonal of the last two dims (torch.tril).
inline ValueDistribution lower_triangular(ValueDistribution law) {
  law.structure = ValueDistribution::Structure::lower_triangular;
  return law;
}
}  // namespace values

}  // namespace rkt
