#include "framework/dims/kernel_domain.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "framework/dims/dim_resolution.h"

namespace rkt {
namespace {

// What `restrictions` leave of dim `dim` in [low, high]: the bounds clamped by >= and <=, and the
// least common multiple of its "% k == 0" steps (1 when none). Not rounded to the step.
struct NarrowedDim {
  std::int64_t low, high, step;
};

NarrowedDim narrowed_by(const std::string& dim, const std::vector<DimRestriction>& restrictions,
                        std::int64_t low, std::int64_t high) {
  NarrowedDim narrowed{low, high, 1};
  for (const DimRestriction& restriction : restrictions) {
    if (restriction.dim != dim) continue;
    switch (restriction.kind) {
      case DimRestriction::Kind::multiple_of:
        narrowed.step = std::lcm(narrowed.step, std::max<std::int64_t>(1, restriction.value));
        break;
      case DimRestriction::Kind::at_least: narrowed.low = std::max(narrowed.low, restriction.value); break;
      case DimRestriction::Kind::at_most: narrowed.high = std::min(narrowed.high, restriction.value); break;
    }
  }
  return narrowed;
}

}  // namespace

const DimRestriction* violated_restriction(const std::vector<DimRestriction>& restrictions,
                                           const Dims& dims) {
  for (const DimRestriction& restriction : restrictions) {
    const auto found = dims.find(restriction.dim);
    if (found != dims.end() && !restriction.admits(found->second)) return &restriction;
  }
  return nullptr;
}

std::string describe_restrictions(const std::vector<DimRestriction>& restrictions) {
  std::string text;
  for (const DimRestriction& restriction : restrictions) {
    text += (text.empty() ? "" : ", ") + restriction.describe();
  }
  return text;
}

DimRange restrict_range(DimRange range, const std::string& dim,
                        const std::vector<DimRestriction>& restrictions) {
  const NarrowedDim narrowed = narrowed_by(dim, restrictions, range.min, range.max);
  range.min = narrowed.low;
  range.max = narrowed.high;
  range.step = std::lcm(range.step, narrowed.step);
  if (range.step > 1) {
    range.min = (range.min + range.step - 1) / range.step * range.step;
    range.max = range.max / range.step * range.step;
  }
  range.max = std::max(range.min, range.max);  // Validation reports an empty domain first.
  range.test_size = std::clamp(range.test_size, range.min, range.max);
  return range;
}

namespace {

bool is_power_of_two(std::int64_t size) { return size > 0 && (size & (size - 1)) == 0; }

// The size nearest `size` inside [low, high] on multiples of `step`, preferring one that is not a
// power of two among the multiples up to two steps either side of the nearest.
std::int64_t nearest_admitted_size(std::int64_t size, std::int64_t low, std::int64_t high,
                                   std::int64_t step, const std::string& dim) {
  const std::int64_t first = (low + step - 1) / step, last = high / step;  // in steps
  if (first > last) {
    throw std::invalid_argument("the declared domain leaves no size of " + dim + " in [" +
                                std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  const std::int64_t nearest = std::clamp((size + step / 2) / step, first, last);
  std::int64_t chosen = nearest * step;
  auto rank = [size](std::int64_t candidate) {
    return std::make_tuple(is_power_of_two(candidate), std::llabs(candidate - size), -candidate);
  };
  for (std::int64_t k = std::max(first, nearest - 2); k <= std::min(last, nearest + 2); ++k) {
    if (rank(k * step) < rank(chosen)) chosen = k * step;
  }
  return chosen;
}

}  // namespace

Dims dims_inside_domain(const Dims& dims, const TaskSpec& task,
                        const std::vector<DimRestriction>& restrictions) {
  Dims inside = dims;
  for (auto& [dim, size] : inside) {
    bool rejected = false;
    for (const DimRestriction& restriction : restrictions) {
      if (restriction.dim == dim && !restriction.admits(size)) rejected = true;
    }
    if (!rejected) continue;
    const auto domain = task.domains().find(dim);
    const NarrowedDim narrowed = narrowed_by(
        dim, restrictions, domain == task.domains().end() ? 1 : domain->second.min,
        domain == task.domains().end() ? std::numeric_limits<std::int64_t>::max() / 2
                                       : domain->second.max);
    size = nearest_admitted_size(size, narrowed.low, narrowed.high, narrowed.step, dim);
  }
  return inside;
}

std::vector<std::string> supported_dims_errors(const KernelSpec& kernel, const TaskSpec& task) {
  std::vector<std::string> errors;
  const std::string who = "kernel '" + kernel.full_id() + "' (" + kernel.file() + ":" +
                          std::to_string(kernel.line()) + ")";
  for (const std::string& error : kernel.declaration_errors()) errors.push_back(who + ": " + error);
  const Dims& declared = task.test_dims(kernel.device());
  for (const DimRestriction& restriction : kernel.supported_dims()) {
    const std::string says = who + " declares \"" + restriction.describe() + "\"";
    if (declared.count(restriction.dim) == 0) {
      errors.push_back(says + ", but task '" + task.id() + "' has no dim '" + restriction.dim + "'");
    } else if (restriction.value < 1) {
      errors.push_back(says + ": the number must be at least 1");
    }
  }
  if (!errors.empty()) return errors;
  // A domain left empty by the restrictions together (e.g. N >= 100 and N <= 50).
  for (const auto& [dim, domain] : task.domains()) {
    const auto [low, high, step] = narrowed_by(dim, kernel.supported_dims(), domain.min, domain.max);
    if ((low + step - 1) / step * step > high) {
      errors.push_back(who + " declares \"" + describe_restrictions(kernel.supported_dims()) +
                       "\", which leaves no size of " + dim + " in task '" + task.id() +
                       "''s domain [" + std::to_string(domain.min) + ", " +
                       std::to_string(domain.max) + "]");
    }
  }
  // Every config's test dims: the kernel's correctness cases, gates and benchmark run there.
  for (std::size_t index = 0; index < task.configs().size(); ++index) {
    const TaskSpec& configured = task.configured(index);
    const Dims& dims = configured.test_dims(kernel.device());
    if (const DimRestriction* violated = violated_restriction(kernel.supported_dims(), dims)) {
      errors.push_back(who + " declares \"" + violated->describe() + "\", but task '" + task.id() +
                       "' tests and benchmarks " + to_string(kernel.device()) + " kernels at " +
                       format_dims(dims) +
                       (task.configs().size() > 1 ? " (config " + configured.config_name() + ")" : "") +
                       ": a kernel must support the task's own sizes");
    }
  }
  return errors;
}

}  // namespace rkt
