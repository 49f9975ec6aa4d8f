// The result of one test case, before gtest or a report sees it.
#pragma once

#include <string>

namespace rkt {

enum class CaseStatus {
  passed,
  failed,
  dropped,  ///< The reference yields NaN/Inf on these inputs: the case says nothing (reported).
  skipped,  ///< The case cannot run here (e.g. no GPU); the message says why.
};

const char* to_string(CaseStatus status);

struct CaseOutcome {
  CaseStatus status = CaseStatus::failed;
  std::string message;  ///< Why it failed, was dropped or skipped; a summary when it passed.
};

}  // namespace rkt
