// Dims that seek the edges where kernel bugs live: 1, just below, at and just above the
// granularities kernels tile by (4 ... 1024 and the task's own test size), primes, uniform values,
// and values above 1.5x the test size (near the memory budget).
//
// Why a mixture and not rapidcheck's inRange: inRange scales its range with rapidcheck's size,
// which starts at 0, so a property with 12 trials began at B=1, N=1 and reached "several rows,
// each shorter than a block" only by luck (a softmax that skipped such rows passed 6 runs in 20).
// Each component below is there because a class of bug hides outside it; docs/property_detection.md
// measures how often each class is caught.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace rkt {

/// The values a property trial may give one dim, and the size the kernel is tested at.
struct DimRange {
  std::int64_t min = 1;
  std::int64_t max = 1;
  std::int64_t test_size = 1;
  /// Every value drawn is a multiple of step: a kernel that declares "N % 4 == 0" is tested on
  /// multiples of 4 only, with the edges counted in steps (1 step, a granularity +- 1 step, ...).
  /// min, max and test_size are multiples of it (framework/dims/kernel_domain.h makes them so).
  std::int64_t step = 1;
};

/// The granularities kernels commonly tile, vectorise or launch by (elements): float4 loads,
/// warps, blocks.
const std::vector<std::int64_t>& common_granularities();

/// Every edge value inside `range`: 1, 2, 3; g-1, g, g+1 for each common granularity and for the
/// test size; the largest prime below and the smallest above each power of two; the maximum.
/// Sorted, without repeats.
std::vector<std::int64_t> edge_values(const DimRange& range);

/// The primes inside `range` that edge_values uses (next to each power of two, and below 64).
std::vector<std::int64_t> edge_primes(const DimRange& range);

/// The lowest value of `range` that counts as "large": above 1.5x the test size, or the upper
/// half of the range when 1.5x the test size is out of reach.
std::int64_t large_dim_floor(const DimRange& range);

/// A source of uniform 64-bit numbers (rapidcheck's Random in properties, a fixed stream in tests).
using RandomBits = std::function<std::uint64_t()>;

/// Which draw a trial makes.
enum class DimTier {
  edges,      ///< The edge-seeking mixture over the whole range (cheap trials).
  full_size,  ///< Near and above the test size, up to the range's maximum (few, costly trials).
  whole_domain,  ///< The domain's maximum, or log-uniform from the test size up to it (few trials).
};

/// One dim drawn from `range` for `tier`, from the bits of `next`. The mixture's shares are in
/// rkt/defaults.h (kEdgeDim*Share).
std::int64_t draw_dim(const DimRange& range, DimTier tier, const RandomBits& next);

/// draw_dim as a rapidcheck generator. It ignores rapidcheck's size (every trial may reach every
/// edge) and shrinks towards range.min, so a failing case still shrinks to the smallest dim that
/// fails. With a step above 1 it draws and shrinks in steps.
rc::Gen<std::int64_t> dim_generator(DimRange range, DimTier tier);

}  // namespace rkt
