#include "framework/dims/edge_dims.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "rkt/defaults.h"

namespace rkt {
namespace {

bool is_prime(std::int64_t n) {
  if (n < 2) return false;
  for (std::int64_t d = 2; d * d <= n; ++d) {
    if (n % d == 0) return false;
  }
  return true;
}

std::int64_t clamp_to(const DimRange& range, std::int64_t value) {
  return std::max(range.min, std::min(range.max, value));
}

// A uniform value in [low, high] (high >= low).
std::int64_t uniform_in(std::int64_t low, std::int64_t high, const RandomBits& next) {
  const auto span = static_cast<std::uint64_t>(high - low) + 1;
  return low + static_cast<std::int64_t>(next() % span);
}

// A uniform real in [0, 1) from 53 bits.
double unit_real(const RandomBits& next) {
  return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

// g - 1, g or g + 1 for a granularity g (or the test size), often at a multiple of g: "one
// element past a tile" happens at every tile count, not only the first.
std::int64_t granularity_edge(const DimRange& range, const RandomBits& next) {
  std::vector<std::int64_t> steps;
  for (std::int64_t g : common_granularities()) {
    if (g - 1 <= range.max) steps.push_back(g);
  }
  steps.push_back(range.test_size);
  const std::int64_t step = steps[next() % steps.size()];
  std::int64_t multiple = 1;
  if (next() % 2 == 1 && range.max / step > 1) multiple = uniform_in(1, range.max / step, next);
  const std::int64_t offset = static_cast<std::int64_t>(next() % 3) - 1;
  return clamp_to(range, multiple * step + offset);
}

std::int64_t draw_edges(const DimRange& range, const RandomBits& next) {
  double u = unit_real(next);
  if ((u -= defaults::kEdgeDimOneShare) < 0) return range.min;
  if ((u -= defaults::kEdgeDimTinyShare) < 0) return clamp_to(range, range.min + 1 + static_cast<std::int64_t>(next() % 2));
  if ((u -= defaults::kEdgeDimGranularityShare) < 0) return granularity_edge(range, next);
  if ((u -= defaults::kEdgeDimPrimeShare) < 0) {
    const std::vector<std::int64_t> primes = edge_primes(range);
    if (!primes.empty()) return primes[next() % primes.size()];
  }
  if ((u -= defaults::kEdgeDimUniformShare) < 0) return uniform_in(range.min, range.max, next);
  return uniform_in(large_dim_floor(range), range.max, next);
}

std::int64_t draw_full_size(const DimRange& range, const RandomBits& next) {
  double u = unit_real(next);
  if ((u -= defaults::kFullSizeDimLargeShare) < 0) {
    return uniform_in(large_dim_floor(range), range.max, next);
  }
  if ((u -= defaults::kFullSizeDimTestEdgeShare) < 0) {
    return clamp_to(range, range.test_size + static_cast<std::int64_t>(next() % 3) - 1);
  }
  return uniform_in(clamp_to(range, range.test_size), range.max, next);
}

// The domain's far edge: its maximum, or a log-uniform value between the test size and it.
std::int64_t draw_whole_domain(const DimRange& range, const RandomBits& next) {
  if (unit_real(next) < defaults::kWholeDomainMaxShare) return range.max;
  const double low = std::log(static_cast<double>(clamp_to(range, range.test_size)));
  const double high = std::log(static_cast<double>(range.max));
  return clamp_to(range, static_cast<std::int64_t>(std::llround(std::exp(low + (high - low) * unit_real(next)))));
}

}  // namespace

const std::vector<std::int64_t>& common_granularities() {
  static const std::vector<std::int64_t> granularities = {4, 8, 16, 32, 64, 128, 256, 512, 1024};
  return granularities;
}

std::vector<std::int64_t> edge_primes(const DimRange& range) {
  std::set<std::int64_t> primes;
  for (std::int64_t p = 2; p < 64; ++p) {
    if (is_prime(p)) primes.insert(p);
  }
  for (std::int64_t power = 4; power <= 2 * range.max && power > 0; power *= 2) {
    std::int64_t below = power - 1, above = power + 1;
    while (!is_prime(below)) --below;
    while (!is_prime(above)) ++above;
    primes.insert(below);
    primes.insert(above);
  }
  std::vector<std::int64_t> inside;
  for (std::int64_t p : primes) {
    if (p >= range.min && p <= range.max) inside.push_back(p);
  }
  return inside;
}

std::vector<std::int64_t> edge_values(const DimRange& range) {
  std::set<std::int64_t> values = {range.min, range.min + 1, range.min + 2, range.max};
  std::vector<std::int64_t> steps = common_granularities();
  steps.push_back(range.test_size);
  for (std::int64_t g : steps) {
    for (std::int64_t v : {g - 1, g, g + 1}) values.insert(v);
  }
  for (std::int64_t p : edge_primes(range)) values.insert(p);
  std::vector<std::int64_t> inside;
  for (std::int64_t v : values) {
    if (v >= range.min && v <= range.max) inside.push_back(v);
  }
  return inside;
}

std::int64_t large_dim_floor(const DimRange& range) {
  const std::int64_t above = range.test_size + range.test_size / 2 + 1;  // > 1.5x the test size
  if (above <= range.max) return std::max(range.min, above);
  return std::max(range.min, range.min + (range.max - range.min) / 2);
}

// The range counted in steps: [min, max] / step, the test size rounded down to a step.
DimRange in_steps(const DimRange& range) {
  const std::int64_t step = range.step;
  const std::int64_t min = std::max<std::int64_t>(1, (range.min + step - 1) / step);
  const std::int64_t max = std::max(min, range.max / step);
  return {min, max, std::max(min, std::min(max, range.test_size / step)), 1};
}

std::int64_t draw_dim(const DimRange& range, DimTier tier, const RandomBits& next) {
  if (range.step > 1) return range.step * draw_dim(in_steps(range), tier, next);
  if (range.max <= range.min) return range.min;
  switch (tier) {
    case DimTier::edges: return draw_edges(range, next);
    case DimTier::full_size: return draw_full_size(range, next);
    case DimTier::whole_domain: return draw_whole_domain(range, next);
  }
  return range.min;
}

rc::Gen<std::int64_t> dim_generator(DimRange range, DimTier tier) {
  if (range.step > 1) {
    return rc::gen::map(dim_generator(in_steps(range), tier),
                        [step = range.step](std::int64_t steps) { return steps * step; });
  }
  return [range, tier](const rc::Random& random, int /*size*/) {
    rc::Random bits = random;
    const std::int64_t value = draw_dim(range, tier, [&bits] { return bits.next(); });
    const std::int64_t min = range.min;
    return rc::shrinkable::shrinkRecur(
        value, [min](std::int64_t x) { return rc::shrink::towards<std::int64_t>(x, min); });
  };
}

}  // namespace rkt
