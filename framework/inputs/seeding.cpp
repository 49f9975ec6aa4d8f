#include "framework/inputs/seeding.h"

#include "framework/inputs/hidden_inputs.h"

#include <cstdlib>
#include <random>
#include <stdexcept>

namespace rkt {
namespace {

struct BaseSeed {
  std::uint64_t value = 0;
  bool from_environment = false;
};

const BaseSeed& the_base_seed() {
  static const BaseSeed seed = [] {
    BaseSeed result;
    if (const char* text = std::getenv("RKT_SEED"); text != nullptr && *text != '\0') {
      char* end = nullptr;
      result.value = std::strtoull(text, &end, 10);
      if (end == nullptr || *end != '\0') {
        throw std::invalid_argument(std::string("RKT_SEED='") + text +
                                    "' is not a non-negative integer");
      }
      result.from_environment = true;
    } else {
      std::random_device device;
      result.value = (static_cast<std::uint64_t>(device()) << 32 | device()) % 1000000000000ull;
    }
    return result;
  }();
  return seed;
}

// splitmix64: a well-mixed 64-bit finaliser.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t base_seed() { return the_base_seed().value; }

std::uint64_t secret_seed_part() {
  const auto& secret = hidden_inputs().secret_seed;
  return secret ? mix(*secret ^ 0x5ec2e75eedull) : 0;
}
bool base_seed_from_environment() { return the_base_seed().from_environment; }

std::uint64_t case_seed(const std::string& case_key) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : case_key) hash = (hash ^ c) * 0x100000001b3ull;
  return mix(base_seed() ^ mix(hash) ^ secret_seed_part()) >> 1;  // < 2^63: fits LibTorch's int64
}

}  // namespace rkt
