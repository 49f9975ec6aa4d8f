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
  // Compared where the output lives (on the GPU for CUDA kernels): only scalars come back.
  const at::Tensor out = output.detach().to(at::kDouble).contiguous();
  const at::Tensor ref = reference.detach().to(out.device()).to(at::kDouble).contiguous();
  const at::Tensor error = (out - ref).abs();
  const at::Tensor bad_value = at::isfinite(ref) & ~at::isfinite(out);
  const double own_scale = reference_scale(ref);
  const double scale = std::max(own_scale, scale_floor);
  const double atol = tolerance.atol * scale;
  const at::Tensor outside = ~(error <= atol + tolerance.rtol * ref.abs());
  const std::int64_t outside_count = outside.sum().item<std::int64_t>();
  const std::int64_t bad_value_count = bad_value.sum().item<std::int64_t>();
  check.relative_error_norm = relative_error_norm(out, ref);
  if (scale > own_scale && out.numel() > 0) {
    // Measured against the floor's norm, as the atol is: the output's own norm is rounding noise.
    check.relative_error_norm = (out - ref).norm().item<double>() /
                                (scale * std::sqrt(static_cast<double>(out.numel())));
  }
  check.max_abs_error = error.numel() ? at::nan_to_num(error, 1e308).max().item<double>() : 0.0;

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
