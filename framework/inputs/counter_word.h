// The counter-based generator's word of one element (framework/inputs/counter_random.h), in one
// place for the host loop and the GPU's draw kernel (counter_random_kernel.cu), so that both give
// the same bits by construction.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define RKT_COUNTER_WORD_CALLABLE __host__ __device__ inline
#else
#define RKT_COUNTER_WORD_CALLABLE inline
#endif

namespace rkt::counter_word_detail {

// The two multipliers of a 32-bit multiply-xorshift mixer (Wellons' "lowbias32" constants):
// each step is a bijection on 32 bits, so distinct indices under one key never share a word.
inline constexpr std::uint32_t kMixFirst = 0x7feb352dU;
inline constexpr std::uint32_t kMixSecond = 0x846ca68bU;
inline constexpr double kTwoToMinus24 = 1.0 / 16777216.0;
inline constexpr double kTwoPi = 6.283185307179586476925286766559;

RKT_COUNTER_WORD_CALLABLE std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= kMixFirst;
  x ^= x >> 15;
  x *= kMixSecond;
  x ^= x >> 16;
  return x;
}

/// The word of element `index` under `key`: two mixer rounds over the index's and the key's halves.
RKT_COUNTER_WORD_CALLABLE std::uint32_t word_of(std::uint64_t key, std::uint64_t index) {
  const auto index_low = static_cast<std::uint32_t>(index);
  const auto index_high = static_cast<std::uint32_t>(index >> 32);
  const auto key_low = static_cast<std::uint32_t>(key);
  const auto key_high = static_cast<std::uint32_t>(key >> 32);
  return mix32(mix32(index_low ^ key_low) ^ index_high ^ key_high);
}

/// Uniform in [0, 1) with the word's top 24 bits, as float64: exact.
RKT_COUNTER_WORD_CALLABLE double unit_of(std::uint32_t word) {
  return static_cast<double>(word >> 8) * kTwoToMinus24;
}

}  // namespace rkt::counter_word_detail
