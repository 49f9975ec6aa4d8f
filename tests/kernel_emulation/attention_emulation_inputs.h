// What the attention emulation tests (forward and backward) share: the problem shape, random
// inputs stored in a 16-bit format, and the canary value written after each output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace rkt::attention_emulation {

/// Stored after every output: a kernel that writes past its rows changes it.
inline constexpr std::uint16_t kCanary = 0x1234;

struct Shape {
  std::int64_t batch, heads, kv_heads, seq;
};

/// `n` values drawn N(0, scale^2) from `seed`, stored in Format (bf16 or fp16 bits).
template <class Format>
std::vector<std::uint16_t> random_values(std::size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<std::uint16_t> v(n);
  for (std::uint16_t& x : v) x = Format::from_float(normal(rng));
  return v;
}

}  // namespace rkt::attention_emulation
