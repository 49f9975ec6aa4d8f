// The result of one test case, before gtest or a report sees it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace rkt {

enum class CaseStatus {
  passed,
  failed,
  dropped,  ///< The reference yields NaN/Inf on these inputs: the case says nothing (reported).
  skipped,  ///< The case cannot run here (e.g. no GPU); the message says why.
};

const char* to_string(CaseStatus status);

/// What a program needs to act on a verdict without parsing its message: the inputs of the case
/// that decided it (for a failed property, the shrunk failing trial) and how to replay it.
/// Empty (known == false) where nothing may be said (hidden cases, a secret seed).
struct CaseDetails {
  bool known = false;
  std::map<std::string, std::int64_t> dims;
  double scale = 1;
  bool seed_known = false;  ///< false when a secret seed is in use: the seed would reveal it.
  std::uint64_t seed = 0;
  std::string config;     ///< The task config ("default" when the task has none).
  std::string reproduce;  ///< Environment that replays the case, e.g. RKT_SEED=... or RC_PARAMS=...
  /// The kernel library the case judged when it was not the judge's own (RKT_KERNEL_LIBRARY);
  /// set by the supervision layer, which prints it in the replay command.
  std::string kernel_library;
};

struct CaseOutcome {
  CaseStatus status = CaseStatus::failed;
  std::string message;  ///< Why it failed, was dropped or skipped; a summary when it passed.
  CaseDetails details{};  // Braced, so that {status, message} initialisers stay warning-free.
};

}  // namespace rkt
