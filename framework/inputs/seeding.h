// Seeds: one base seed per run (RKT_SEED, or fresh and printed), mixed per case.
#pragma once

#include <cstdint>
#include <string>

namespace rkt {

/// The run's base seed: RKT_SEED when set, else drawn once from std::random_device.
std::uint64_t base_seed();
/// True when the base seed came from RKT_SEED.
bool base_seed_from_environment();
/// What the secret seed (RKT_SECRET_SEED) adds to every seed; 0 without one.
std::uint64_t secret_seed_part();
/// A seed for one case, stable for a given base seed and case key (e.g. "softmax/x3").
std::uint64_t case_seed(const std::string& case_key);

}  // namespace rkt
