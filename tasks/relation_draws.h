// Relation draws shared by the task files (include/rkt/metamorphic_relations.h).
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "rkt/metamorphic_relations.h"

namespace rkt::relation_draws {

// f(..., a x_i, ...) = a^degree f(...) for the inputs i in `scaled` together, a = 2^k: a power of
// two, so that an honest kernel meets it to the last bit. Every output scales.
inline RelationDraw homogeneous_in(std::vector<std::size_t> scaled, int degree = 1) {
  return [scaled, degree](const Tensors& in, at::Generator& generator) {
    const double a = relations::power_of_two(generator, -3, 3);
    Tensors transformed = in;
    for (std::size_t i : scaled) transformed[i] = relations::scaled(in[i], a);
    const double factor = std::pow(a, degree);
    return RelationInstance{transformed,
                            [factor](const Tensors& y) {
                              Tensors expected;
                              for (const at::Tensor& output : y) expected.push_back(output * factor);
                              return expected;
                            },
                            "a = " + std::to_string(a)};
  };
}

// f(a x + c) = f(x) for input 0, a = 2^k (k in [k_low, k_high]; none when k_low == k_high), c per
// slice along `leading_dims` (the dims not normalised over) in [-c_max, c_max] (none when 0).
inline RelationDraw invariant_under_affine(int k_low, int k_high, double c_max, int leading_dims = -1) {
  return [=](const Tensors& in, at::Generator& generator) {
    const double a = k_high > k_low ? relations::power_of_two(generator, k_low, k_high) : 1.0;
    std::vector<std::int64_t> shape = in[0].sizes().vec();
    const std::size_t kept = leading_dims < 0 ? shape.size() - 1 : static_cast<std::size_t>(leading_dims);
    for (std::size_t d = kept; d < shape.size(); ++d) shape[d] = 1;
    // Drawn on the CPU (the generator's device, so the values do not depend on where the
    // inputs are), then moved to the inputs' device.
    const at::Tensor c = (c_max > 0 ? at::empty(shape, at::kDouble).uniform_(-c_max, c_max, generator)
                                     : at::zeros(shape, at::kDouble))
                             .to(in[0].device());
    Tensors transformed = in;
    transformed[0] = (in[0].to(at::kDouble) * a + c).to(in[0].scalar_type());
    return RelationInstance{transformed, [](const Tensors& y) { return y; },
                            "a = " + std::to_string(a) + ", c in [-" + std::to_string(c_max) + ", " +
                                std::to_string(c_max) + "]"};
  };
}

}  // namespace rkt::relation_draws
