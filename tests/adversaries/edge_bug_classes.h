// The edge bug classes: a kernel that is wrong only when a dim is below 512, not a multiple of 4,
// equal to 1, odd, not a multiple of 32, or above 1.5x its test size (issue 10), or only above a
// threshold far inside the declared domain, N >= 1024 or N >= 4096 (issue 19: the whole-domain
// trials). Shared by the
// edge adversaries (edge_kernels.cpp) and the measurement of how often the shape property catches
// each class (tools/property_detection), so that both mean the same thing. Header-only, no LibTorch.
#pragma once

#include <cstdint>
#include <vector>

namespace rkt::testing {

enum class EdgeBugClass {
  below_512,
  not_multiple_of_4,
  equals_1,
  odd,
  not_multiple_of_32,
  above_1_5x_test,
  from_1024,
  from_4096,
};

inline const std::vector<EdgeBugClass>& all_edge_bug_classes() {
  static const std::vector<EdgeBugClass> classes = {
      EdgeBugClass::below_512, EdgeBugClass::not_multiple_of_4,  EdgeBugClass::equals_1,
      EdgeBugClass::odd,       EdgeBugClass::not_multiple_of_32, EdgeBugClass::above_1_5x_test,
      EdgeBugClass::from_1024, EdgeBugClass::from_4096};
  return classes;
}

inline const char* to_string(EdgeBugClass bug) {
  switch (bug) {
    case EdgeBugClass::below_512: return "below_512";
    case EdgeBugClass::not_multiple_of_4: return "not_multiple_of_4";
    case EdgeBugClass::equals_1: return "equals_1";
    case EdgeBugClass::odd: return "odd";
    case EdgeBugClass::not_multiple_of_32: return "not_multiple_of_32";
    case EdgeBugClass::above_1_5x_test: return "above_1_5x_test";
    case EdgeBugClass::from_1024: return "from_1024";
    case EdgeBugClass::from_4096: return "from_4096";
  }
  return "?";
}

/// Whether a kernel with `bug` is wrong at dim `value` when the dim's test size is `test_size`.
inline bool triggers(EdgeBugClass bug, std::int64_t value, std::int64_t test_size) {
  switch (bug) {
    case EdgeBugClass::below_512: return value < 512;
    case EdgeBugClass::not_multiple_of_4: return value % 4 != 0;
    case EdgeBugClass::equals_1: return value == 1;
    case EdgeBugClass::odd: return value % 2 != 0;
    case EdgeBugClass::not_multiple_of_32: return value % 32 != 0;
    case EdgeBugClass::above_1_5x_test: return 2 * value > 3 * test_size;
    case EdgeBugClass::from_1024: return value >= 1024;
    case EdgeBugClass::from_4096: return value >= 4096;
  }
  return false;
}

/// The softmax task's row length N at its CPU test size (small_dims): the edge adversaries'
/// "test size". tools/property_detection checks that the task still says so.
inline constexpr std::int64_t kCpuSoftmaxRowLength = 300;

}  // namespace rkt::testing
