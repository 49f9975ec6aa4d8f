#include "framework/comparison/output_comparison.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "framework/base/environment_switch.h"
#include "framework/base/phase_times.h"

#if RKT_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "framework/comparison/comparison_kernel.h"
#endif

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

// check_output's scalars, however they were computed.
struct ComparisonScalars {
  double outside = 0;
  double bad_values = 0;
  double error_norm = 0;
  double reference_norm = 0;
  double largest_error = 0;
  double own_scale = 1;
  double scale = 1;
};

// Through ATen operations on the output's device: all of them fetched in one copy (each .item()
// waits for the device), each full-size temporary made once and then changed in place.
ComparisonScalars scalars_by_tensor_ops(const at::Tensor& out, const at::Tensor& ref,
                                        const Tolerance& tolerance, double scale_floor) {
  const at::Tensor difference = out - ref;
  at::Tensor error = difference.abs();
  // reference_scale's rule on the device: the rms, or 1 when it is zero or not finite.
  const at::Tensor rms = ref.numel() ? ref.square().mean().sqrt() : at::ones({}, ref.options());
  const at::Tensor own_scale =
      at::where(at::isfinite(rms) & (rms > 0), rms, at::ones({}, rms.options()));
  const at::Tensor scale = at::clamp_min(own_scale, scale_floor);
  const at::Tensor bound = ref.abs().mul_(tolerance.rtol).add_(scale * tolerance.atol);
  const at::Tensor outside = at::le(error, bound).logical_not_();  // a NaN error is outside
  const at::Tensor bad_value = at::isfinite(ref).logical_and_(at::isfinite(out).logical_not_());
  const at::Tensor outside_total = outside.sum().to(at::kDouble);
  const at::Tensor error_norm = difference.norm();
  const at::Tensor largest_error =
      error.numel() ? error.nan_to_num_(1e308).max() : at::zeros({}, error.options());
  const at::Tensor fetched = at::stack({outside_total, bad_value.sum().to(at::kDouble), error_norm,
                                        ref.norm(), largest_error, own_scale, scale})
                                 .cpu();
  const double* values = fetched.data_ptr<double>();
  return {values[0], values[1], values[2], values[3], values[4], values[5], values[6]};
}

#if RKT_WITH_CUDA
std::optional<ComparedFormat> compared_format(c10::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat:
      return ComparedFormat::float32;
    case at::kDouble:
      return ComparedFormat::float64;
    case at::kHalf:
      return ComparedFormat::float16;
    case at::kBFloat16:
      return ComparedFormat::bfloat16;
    default:
      return std::nullopt;
  }
}

bool gpu_comparison_kernel_enabled() {
  static const bool enabled = on_unless_set_to_zero(kGpuComparisonKernelVariable);
  return enabled;
}
#endif

bool use_comparison_kernel(const at::Tensor& output, ComparisonPath path) {
#if RKT_WITH_CUDA
  const bool able = output.is_cuda() && compared_format(output.scalar_type()).has_value();
  if (path == ComparisonPath::kernel && !able) {
    throw std::invalid_argument(
        "the comparison kernel compares float, double, half or bfloat16 "
        "outputs on a CUDA device");
  }
  return able && (path == ComparisonPath::kernel ||
                  (path == ComparisonPath::automatic && gpu_comparison_kernel_enabled()));
#else
  (void)output;
  if (path == ComparisonPath::kernel) {
    throw std::invalid_argument("the comparison kernel needs a CUDA build");
  }
  return false;
#endif
}

// Through the comparison kernel (comparison_kernel.h), on the current stream; `output` contiguous
// in its own format, `ref` float64 on its device.
ComparisonScalars scalars_by_kernel(const at::Tensor& output, const at::Tensor& ref,
                                    const Tolerance& tolerance, double scale_floor) {
#if RKT_WITH_CUDA
  const c10::cuda::CUDAGuard on_its_device(output.device());
  const auto options = at::TensorOptions().dtype(at::kDouble).device(output.device());
  at::Tensor scratch = at::empty({comparison_scratch_doubles(output.numel())}, options);
  at::Tensor results = at::empty({7}, options);
  const int status = enqueue_output_comparison(
      output.data_ptr(), *compared_format(output.scalar_type()), ref.data_ptr<double>(),
      output.numel(), tolerance.atol, tolerance.rtol, scale_floor, scratch.data_ptr<double>(),
      results.data_ptr<double>(), c10::cuda::getCurrentCUDAStream().stream());
  if (status != 0) {
    throw std::runtime_error(std::string("comparing an output on the GPU: ") +
                             cudaGetErrorString(static_cast<cudaError_t>(status)));
  }
  const at::Tensor fetched = results.cpu();
  const double* values = fetched.data_ptr<double>();
  return {values[0], values[1], std::sqrt(values[2]), std::sqrt(values[3]), values[4],
          values[5], values[6]};
#else
  (void)output;
  (void)ref;
  (void)tolerance;
  (void)scale_floor;
  throw std::invalid_argument("the comparison kernel needs a CUDA build");
#endif
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
                         const Tolerance& tolerance, double scale_floor, ComparisonPath path) {
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
  // The kernel reads the output in its own format; the ATen operations (and a failure's message)
  // read a float64 copy.
  const at::Tensor ref = reference.detach().to(output.device()).to(at::kDouble).contiguous();
  const bool by_kernel = use_comparison_kernel(output, path);
  at::Tensor out = by_kernel ? at::Tensor() : output.detach().to(at::kDouble).contiguous();
  const ComparisonScalars scalars =
      by_kernel ? scalars_by_kernel(output.detach().contiguous(), ref, tolerance, scale_floor)
                : scalars_by_tensor_ops(out, ref, tolerance, scale_floor);
  if (!out.defined() && (scalars.outside > 0 || scalars.bad_values > 0)) {
    out = output.detach().to(at::kDouble).contiguous();
  }
  const auto outside_count = static_cast<std::int64_t>(scalars.outside);
  const auto bad_value_count = static_cast<std::int64_t>(scalars.bad_values);
  const double own_scale = scalars.own_scale;
  const double scale = scalars.scale;
  const double atol = tolerance.atol * scale;
  // As relative_error_norm() computes it; past the floor, against the floor's norm, as the atol
  // is: the output's own norm is rounding noise.
  check.relative_error_norm =
      scalars.reference_norm > 0 ? scalars.error_norm / scalars.reference_norm : scalars.error_norm;
  if (scale > own_scale && output.numel() > 0) {
    check.relative_error_norm =
        scalars.error_norm / (scale * std::sqrt(static_cast<double>(output.numel())));
  }
  check.max_abs_error = scalars.largest_error;

  why << std::setprecision(6);
  if (bad_value_count > 0) {
    const at::Tensor bad_value = at::isfinite(ref) & ~at::isfinite(out);
    const std::int64_t first = bad_value.flatten().nonzero()[0].item<std::int64_t>();
    why << bad_value_count << " of " << out.numel()
        << " elements are NaN/Inf where the reference is finite (first at "
        << index_of(first, out.sizes()) << ": output " << out.flatten()[first].item<double>()
        << ", reference " << ref.flatten()[first].item<double>() << "); ";
  }
  if (outside_count > 0) {
    const at::Tensor outside = ~((out - ref).abs() <= atol + tolerance.rtol * ref.abs());
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
