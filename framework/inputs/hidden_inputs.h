// Hidden inputs for CI secrets: a secret seed mixed into every seed, and a hidden suite of extra
// distributions and shapes kept outside the repository. Reports say that they were used, never
// what they were.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rkt/task.h"

namespace rkt {

inline constexpr const char* kSecretSeedVariable = "RKT_SECRET_SEED";
inline constexpr const char* kHiddenSuiteVariable = "RKT_HIDDEN_SUITE";
inline constexpr const char* kHiddenVerboseVariable = "RKT_HIDDEN_VERBOSE";
/// How a supervisor hands the secrets to its child: an inherited memfd, never the environment.
inline constexpr const char* kSecretsFdVariable = "RKT_SECRETS_FD";

/// One extra case of a hidden suite.
struct HiddenCase {
  enum class Kind { scale, value_range, dims };
  Kind kind = Kind::scale;
  double scale = 1;                        ///< scale: every floating input multiplied by it.
  std::pair<double, double> range{0, 1};   ///< value_range: floating inputs drawn U[low, high).
  std::string task;                        ///< dims: the task these dims are for.
  Dims dims;                               ///< dims: overrides of the task's test dims.
  int line = 0;                            ///< Where it stands in the suite (for messages).
  std::vector<std::size_t> dim_fields;     ///< dims: each override's field number, in `dims` order.
};

/// Parses a hidden suite. One case per line, '#' starts a comment:
///   scale <factor>                 e.g. "scale -250"
///   range <low> <high>             e.g. "range -5 5"
///   dims <task> <NAME=size>...     e.g. "dims softmax B=3 N=5000"
/// Throws std::invalid_argument naming the line.
std::vector<HiddenCase> parse_hidden_suite(const std::string& text);

/// What is wrong with `suite` against the registered tasks and kernels, one message per problem,
/// naming the line and field only (the suite's content is a secret): a dims line for a task that
/// is not registered or that no kernel implements, a dim the task does not have, a size outside
/// the task's declared domain; and a suite none of whose lines reaches any kernel. A typo must
/// never quietly turn a hidden case into no case.
/// `implemented` holds the ids of the tasks some registered kernel implements.
std::vector<std::string> hidden_suite_errors(const std::vector<HiddenCase>& suite,
                                             const std::set<std::string>& implemented);

struct HiddenInputs {
  std::optional<std::uint64_t> secret_seed;
  std::string suite_text;
  std::vector<HiddenCase> suite;
  bool any() const { return secret_seed.has_value() || !suite.empty(); }
  /// "secret seed; hidden suite of 3 cases", or "none": what reports may say.
  std::string summary() const;
};

/// The hidden inputs of this process, loaded once: from the secrets channel in a supervised
/// child, else from RKT_SECRET_SEED and the file named by RKT_HIDDEN_SUITE. Every variable is
/// removed from the environment as it is read. Throws std::invalid_argument on a bad value.
const HiddenInputs& hidden_inputs();

/// A file descriptor (inheritable) holding the hidden inputs for a child, or -1 when none.
int make_secrets_channel();

/// True when RKT_HIDDEN_VERBOSE=1 asks for hidden cases' details in messages.
bool hidden_details_allowed();

}  // namespace rkt
