#include "framework/comparison/derived_tolerance.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"

namespace rkt {

Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const at::Tensor& honest,
                            double scale_floor) {
  Tolerance derived = floor;
  derived.rtol = std::max(floor.rtol, kHonestRelativeUnits * unit_roundoff(precision));
  if (!honest.defined() || honest.sizes() != reference.sizes() || reference.numel() == 0) {
    return derived;
  }
  const at::Tensor ref = reference.to(at::kDouble);
  const at::Tensor error = honest.to(ref.device()).to(at::kDouble) - ref;
  if (!all_finite(error)) return derived;
  const double n = static_cast<double>(ref.numel());
  const double scale = std::max(reference_scale(ref), scale_floor);
  const double rms_error = error.square().mean().sqrt().item<double>();
  const double tail = kHonestErrorTailFactor * (std::sqrt(2 * std::log(std::max(n, 2.0))) + 1);
  const double max_error = error.abs().max().item<double>();
  derived.atol = std::max({floor.atol, tail * rms_error / scale, kHonestMaxErrorFactor * max_error / scale});
  // The error norm in the unit the comparison uses (the floor's when the output is numerically zero).
  const double norm = std::max(ref.norm().item<double>(), scale * std::sqrt(n));
  derived.max_relative_error_norm = std::max(
      floor.max_relative_error_norm, kHonestErrorNormFactor * error.norm().item<double>() / norm);
  return derived;
}

Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const std::vector<at::Tensor>& honest,
                            double scale_floor) {
  Tolerance worst = derived_tolerance(floor, precision, reference, at::Tensor(), scale_floor);
  for (const at::Tensor& sample : honest) {
    const Tolerance t = derived_tolerance(floor, precision, reference, sample, scale_floor);
    worst.atol = std::max(worst.atol, t.atol);
    worst.rtol = std::max(worst.rtol, t.rtol);
    worst.max_relative_error_norm = std::max(worst.max_relative_error_norm, t.max_relative_error_norm);
  }
  return worst;
}

Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const std::vector<at::Tensor>& honest,
                            const at::Tensor& truncated, double scale_floor) {
  Tolerance worst = derived_tolerance(floor, precision, reference, honest, scale_floor);
  if (!truncated.defined() || truncated.sizes() != reference.sizes() || reference.numel() == 0) {
    return worst;
  }
  const at::Tensor ref = reference.to(at::kDouble);
  const at::Tensor error = truncated.to(ref.device()).to(at::kDouble) - ref;
  if (!all_finite(error)) return worst;
  const double n = static_cast<double>(ref.numel());
  const double scale = std::max(reference_scale(ref), scale_floor);
  const double norm = std::max(ref.norm().item<double>(), scale * std::sqrt(n));
  worst.atol = std::max(worst.atol, kDirectedRoundingFactor * error.abs().max().item<double>() / scale);
  worst.max_relative_error_norm = std::max(
      worst.max_relative_error_norm, kDirectedRoundingFactor * error.norm().item<double>() / norm);
  return worst;
}

}  // namespace rkt
