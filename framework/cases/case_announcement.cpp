#include "framework/cases/case_announcement.h"

#include <atomic>
#include <utility>

namespace rkt {
namespace {

CaseInputsListener& listener() {
  static CaseInputsListener installed;
  return installed;
}

// Process-wide rather than per thread: a withholding case that drew inputs on another thread
// must stay silent there too; withholding more than needed only costs a hung case its details.
std::atomic<int> withholding{0};

}  // namespace

void set_case_inputs_listener(CaseInputsListener new_listener) {
  listener() = std::move(new_listener);
}

void announce_case_inputs(const CaseDetails& details) {
  if (withholding.load() > 0 || !listener() || !details.known) return;
  listener()(details);
}

WithheldCaseInputs::WithheldCaseInputs() { ++withholding; }
WithheldCaseInputs::~WithheldCaseInputs() { --withholding; }

}  // namespace rkt
