// Value families: input patterns beyond scaling that real numerical bugs fail. KernelBench-Verified's
// four distributions scale inputs; they never shift them, mix magnitudes, repeat values or hand a
// kernel -0 and denormals. A task declares the families meaningful for it, next to its RKT_TASK:
//   RKT_VALUE_FAMILIES(layernorm, offset, mixed_magnitudes, ties);
// Each declared family becomes a case `values_<family>`: a correctness case at the test size in
// which the task's data inputs (floating inputs that are not weights or buffers) are transformed.
// Parameters: include/rkt/defaults.h (kValue*).
#pragma once

#include <string>
#include <vector>

namespace rkt {

enum class ValueFamily {
  offset,                  ///< A common offset far from zero next to the spread (one-pass variance).
  mixed_magnitudes,        ///< Each element times 10^u, u uniform: many decades within one row.
  ties,                    ///< Values on a coarse grid: exact ties and repeats (equal maxima).
  signed_zeros_denormals,  ///< A share of elements replaced by +0, -0 and denormals of both signs.
};

/// "offset", "mixed_magnitudes", "ties", "signed_zeros_denormals": used in case names.
const char* to_string(ValueFamily family);

/// Declares the families of task `task_id` (tests/unit/value_families_test.cpp checks every
/// declared id names a registered task).
int register_value_families(const std::string& task_id, std::vector<ValueFamily> families,
                            const char* file, int line);

/// The families task `task_id` declared (none when it declared none).
const std::vector<ValueFamily>& value_families_of(const std::string& task_id);

/// Every task id that declared families.
std::vector<std::string> tasks_with_value_families();

}  // namespace rkt

#ifndef RKT_CONCAT
#define RKT_CONCAT_INNER(a, b) a##b
#define RKT_CONCAT(a, b) RKT_CONCAT_INNER(a, b)
#endif

/// Declares the value families of a task, next to its RKT_TASK:
///   RKT_VALUE_FAMILIES(layernorm, {rkt::ValueFamily::offset, rkt::ValueFamily::ties});
#define RKT_VALUE_FAMILIES(task_id, ...)                                            \
  [[maybe_unused]] static const int RKT_CONCAT(rkt_value_families_, __COUNTER__) =  \
      ::rkt::register_value_families(#task_id, std::vector<::rkt::ValueFamily> __VA_ARGS__, \
                                     __FILE__, __LINE__)
