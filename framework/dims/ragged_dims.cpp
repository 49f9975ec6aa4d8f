#include "framework/dims/ragged_dims.h"

#include <cstdint>

#include "framework/dims/kernel_domain.h"

namespace rkt {
namespace {

// How far (in steps of the dim's range) the search for a ragged value goes either way.
constexpr std::int64_t kRaggedSearchSteps = 64;  // [steps]

bool power_of_two(std::int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

bool ragged(std::int64_t value, const DimRange& range) {
  const bool odd_allowed = range.step % 2 == 1;
  return value >= range.min && value <= range.max && value % range.step == 0 &&
         !power_of_two(value) && (!odd_allowed || value % 2 == 1);
}

}  // namespace

Dims ragged_dims(const Dims& dims, const TaskSpec& task,
                 const std::vector<DimRestriction>& restrictions) {
  Dims result = dims;
  for (auto& [dim, value] : result) {
    const auto domain = task.domains().find(dim);
    if (domain == task.domains().end()) continue;
    DimRange range;
    range.min = domain->second.min;
    range.max = domain->second.max;
    range.test_size = value;
    range = restrict_range(range, dim, restrictions);
    // Nearest to the given value, upwards first (a tail past a granularity, not below it).
    const std::int64_t base = value / range.step * range.step;
    for (std::int64_t distance = 0; distance <= kRaggedSearchSteps; ++distance) {
      const std::int64_t up = base + distance * range.step, down = base - distance * range.step;
      if (ragged(up, range)) {
        value = up;
        break;
      }
      if (ragged(down, range)) {
        value = down;
        break;
      }
    }
  }
  return result;
}

}  // namespace rkt
