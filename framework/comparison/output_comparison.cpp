#include "framework/comparison/output_comparison.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "framework/base/phase_times.h"

namespace rkt {
namespace {

std::string index_of(std::int64_t flat, at::IntArrayRef sizes) {
  std::vector<std::int64_t> index(sizes.size());
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  std::ostringstream text;
  text << "[";
  for (std::size_t d = 0; d < index.size(); ++d) text << (d ? "," : "") << index[d];
  text << "]";
  return text.str();
}

std::string sizes_of(at::IntArrayRef sizes) {
  std::ostringstream text;
  text << sizes;
  return text.str();
}

}  // namespace

bool all_finite(const at::Tensor& tensor) {
  if (!tensor.is_floating_point()) return true;
  return at::isfinite(tensor).all().item<bool>();
}

double relative_error_norm(const at::Tensor& output, const at::Tensor& reference) {
  const at::Tensor out = output.to(at::kDouble);
  const at::Tensor ref = reference.to(out.device()).to(at::kDouble);
  const double error = (out - ref).norm().item<double>();
  const double scale = ref.norm().item<double>();
  return scale > 0 ? error / scale : error;
}

double reference_scale(const at::Tensor& reference) {
  if (reference.numel() == 0) return 1.0;
  const double rms = reference.to(at::kDouble).square().mean().sqrt().item<double>();
  return std::isfinite(rms) && rms > 0 ? rms : 1.0;
}

std::int64_t count_outside_tolerance(const at::Tensor& output, const at::Tensor& reference,
                                     const Tolerance& tolerance) {
  const at::Tensor out = output.to(at::kDouble);
  const at::Tensor ref = reference.to(out.device()).to(at::kDouble);
  const double atol = tolerance.atol * reference_scale(ref);
  const at::Tensor inside = (out - ref).abs() <= atol + tolerance.rtol * ref.abs();
  return inside.numel() - inside.sum().item<std::int64_t>();
}

double numerically_zero_floor(const std::vector<at::Tensor>& references) {
  double largest = 0;
  for (const at::Tensor& reference : references) {
    if (reference.numel() == 0 || !reference.is_floating_point()) continue;
    const double rms = reference.to(at::kDouble).square().mean().sqrt().item<double>();
    if (std::isfinite(rms)) largest = std::max(largest, rms);
  }
  return kNumericallyZeroFraction * largest;
}

OutputCheck check_output(const at::Tensor& output, const at::Tensor& reference,
                         c10::ScalarType expected_dtype, const c10::Device& expected_device,
                         const Tolerance& tolerance, double scale_floor) {
  ScopedPhase phase(Phase::comparison);
  OutputCheck check;
  std::ostringstream why;
  if (!output.defined()) {
    check.message = "the kernel returned an undefined tensor";
    return check;
  }
  if (output.sizes() != reference.sizes()) {
    why << "shape " << sizes_of(output.sizes()) << " differs from the reference's "
        << sizes_of(reference.sizes());
    check.message = why.str();
    return check;
  }
  if (output.scalar_type() != expected_dtype) {
    why << "dtype " << output.scalar_type() << " differs from the expected " << expected_dtype;
    check.message = why.str();
    return check;
  }
  if (output.device() != expected_device) {
    why << "device " << output.device() << " differs from the expected " << expected_device;
    check.message = why.str();
    return check;
  }
  // Compared where the output lives (on the GPU for CUDA kernels): only scalars come back, all
  // of them in one copy (each .item() waits for the device), and each full-size temporary is
  // made once and then changed in place.
  const at::Tensor out = output.detach().to(at::kDouble).contiguous();
  const at::Tensor ref = reference.detach().to(out.device()).to(at::kDouble).contiguous();
  const at::Tensor difference = out - ref;
  at::Tensor error = difference.abs();
  // reference_scale's rule on the device: the rms, or 1 when it is zero or not finite.
  const at::Tensor rms = ref.numel() ? ref.square().mean().sqrt() : at::ones({}, ref.options());
  const at::Tensor own_scale_on_device =
      at::where(at::isfinite(rms) & (rms > 0), rms, at::ones({}, rms.options()));
  const at::Tensor scale_on_device = at::clamp_min(own_scale_on_device, scale_floor);
  const at::Tensor bound = ref.abs().mul_(tolerance.rtol).add_(scale_on_device * tolerance.atol);
  const at::Tensor outside = at::le(error, bound).logical_not_();  // a NaN error is outside
  const at::Tensor bad_value = at::isfinite(ref).logical_and_(at::isfinite(out).logical_not_());
  const at::Tensor outside_total = outside.sum().to(at::kDouble);
  const at::Tensor error_norm = difference.norm();
  const at::Tensor largest_error =
      error.numel() ? error.nan_to_num_(1e308).max() : at::zeros({}, error.options());
  const at::Tensor scalars =
      at::stack({outside_total, bad_value.sum().to(at::kDouble), error_norm, ref.norm(),
                 largest_error, own_scale_on_device, scale_on_device})
          .cpu();
  const double* fetched = scalars.data_ptr<double>();
  const auto outside_count = static_cast<std::int64_t>(fetched[0]);
  const auto bad_value_count = static_cast<std::int64_t>(fetched[1]);
  const double own_scale = fetched[5];
  const double scale = fetched[6];
  const double atol = tolerance.atol * scale;
  // As relative_error_norm() computes it; past the floor, against the floor's norm, as the atol
  // is: the output's own norm is rounding noise.
  check.relative_error_norm = fetched[3] > 0 ? fetched[2] / fetched[3] : fetched[2];
  if (scale > own_scale && out.numel() > 0) {
    check.relative_error_norm = fetched[2] / (scale * std::sqrt(static_cast<double>(out.numel())));
  }
  check.max_abs_error = fetched[4];

  why << std::setprecision(6);
  if (bad_value_count > 0) {
    const std::int64_t first = bad_value.flatten().nonzero()[0].item<std::int64_t>();
    why << bad_value_count << " of " << out.numel()
        << " elements are NaN/Inf where the reference is finite (first at "
        << index_of(first, out.sizes()) << ": output " << out.flatten()[first].item<double>()
        << ", reference " << ref.flatten()[first].item<double>() << "); ";
  }
  if (outside_count > 0) {
    const std::int64_t worst = outside.flatten().nonzero()[0].item<std::int64_t>();
    why << outside_count << " of " << out.numel() << " elements are outside atol="
        << tolerance.atol << " x rms(ref) " << scale << " = " << atol
        << ", rtol=" << tolerance.rtol << " (first at "
        << index_of(worst, out.sizes()) << ": output " << out.flatten()[worst].item<double>()
        << ", reference " << ref.flatten()[worst].item<double>() << "); ";
  }
  if (!(check.relative_error_norm <= tolerance.max_relative_error_norm)) {
    why << "relative error norm ||out-ref||/||ref|| = " << check.relative_error_norm
        << " exceeds " << tolerance.max_relative_error_norm << "; ";
  }
  check.message = why.str();
  if (check.message.size() >= 2) check.message.resize(check.message.size() - 2);
  check.passed = check.message.empty();
  return check;
}

}  // namespace rkt
