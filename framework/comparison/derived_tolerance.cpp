#include "framework/comparison/derived_tolerance.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"

namespace rkt {

namespace {

// An honest sample's distance from the reference, in the units the comparison uses.
struct HonestError {
  double elements = 0;
  double scale = 1;          // max(rms(ref), scale_floor): the unit of atol
  double rms = 0;            // rms(honest - ref)
  double largest = 0;        // max |honest - ref|
  double relative_norm = 0;  // ||honest - ref|| over the reference's norm (or the floor's)
};

// Nothing when the sample cannot bound anything (missing, another shape, not finite).
std::optional<HonestError> honest_error(const at::Tensor& reference, const at::Tensor& honest,
                                        double scale_floor) {
  if (!honest.defined() || honest.sizes() != reference.sizes() || reference.numel() == 0) {
    return std::nullopt;
  }
  const at::Tensor ref = reference.to(at::kDouble);
  const at::Tensor error = honest.to(ref.device()).to(at::kDouble) - ref;
  if (!all_finite(error)) return std::nullopt;
  HonestError measured;
  measured.elements = static_cast<double>(ref.numel());
  measured.scale = std::max(reference_scale(ref), scale_floor);
  measured.rms = error.square().mean().sqrt().item<double>();
  measured.largest = error.abs().max().item<double>();
  // The error norm in the unit the comparison uses (the floor's when the output is numerically zero).
  const double norm = std::max(ref.norm().item<double>(), measured.scale * std::sqrt(measured.elements));
  measured.relative_norm = error.norm().item<double>() / norm;
  return measured;
}

}  // namespace

Tolerance derived_tolerance(const Tolerance& floor, Precision precision,
                            const at::Tensor& reference, const at::Tensor& honest,
                            double scale_floor) {
  Tolerance derived = floor;
  derived.rtol = std::max(floor.rtol, kHonestRelativeUnits * unit_roundoff(precision));
  const std::optional<HonestError> error = honest_error(reference, honest, scale_floor);
  if (!error) return derived;
  const double tail =
      kHonestErrorTailFactor * (std::sqrt(2 * std::log(std::max(error->elements, 2.0))) + 1);
  derived.atol = std::max({floor.atol, tail * error->rms / error->scale,
                           kHonestMaxErrorFactor * error->largest / error->scale});
  derived.max_relative_error_norm =
      std::max(floor.max_relative_error_norm, kHonestErrorNormFactor * error->relative_norm);
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
  const std::optional<HonestError> error = honest_error(reference, truncated, scale_floor);
  if (!error) return worst;
  worst.atol = std::max(worst.atol, kDirectedRoundingFactor * error->largest / error->scale);
  worst.max_relative_error_norm =
      std::max(worst.max_relative_error_norm, kDirectedRoundingFactor * error->relative_norm);
  return worst;
}

Tolerance accumulation_tolerance(const Tolerance& base, Precision accumulation,
                                 double reduction_length, double elements) {
  const double relative =
      kAccumulationErrorFactor * unit_roundoff(accumulation) * std::sqrt(std::max(reduction_length, 1.0));
  Tolerance widened = base;
  widened.max_relative_error_norm = std::max(base.max_relative_error_norm, relative);
  widened.atol = std::max(base.atol, (std::sqrt(2 * std::log(std::max(elements, 2.0))) + 1) * relative);
  return widened;
}

Tolerance output_tolerance(const Tolerance& floor, Precision precision, Precision accumulation,
                           c10::ScalarType stored_dtype, const at::Tensor& reference,
                           std::vector<at::Tensor> honest, at::Tensor truncated,
                           double reduction_length, double scale_floor) {
  Tolerance tolerance = floor;
  if (!honest.empty()) {
    Precision rounding = precision;
    if (is_low_precision(stored_dtype)) {
      const at::Tensor before_store = truncated.defined() ? truncated : honest.front();
      honest = stored_as(honest, stored_dtype);
      truncated = stored_truncated(before_store, stored_dtype);
      const Precision format = storage_class(stored_dtype);
      if (unit_roundoff(format) > unit_roundoff(rounding)) rounding = format;
    }
    tolerance = derived_tolerance(floor, rounding, reference, honest, truncated, scale_floor);
  }
  return accumulation_tolerance(tolerance, accumulation, reduction_length,
                                static_cast<double>(reference.numel()));
}

double reduction_length(const TaskSpec& task, const std::vector<at::Tensor>& inputs) {
  double length = 1;
  for (const std::string& dim : task.reduction_dims()) {
    for (std::size_t i = 0; i < task.inputs().size() && i < inputs.size(); ++i) {
      const std::vector<std::string>& dims = task.inputs()[i].dims;
      const auto found = std::find(dims.begin(), dims.end(), dim);
      if (found == dims.end() || static_cast<std::int64_t>(dims.size()) != inputs[i].dim()) continue;
      length *= static_cast<double>(inputs[i].size(found - dims.begin()));
      break;
    }
  }
  return length;
}

}  // namespace rkt
