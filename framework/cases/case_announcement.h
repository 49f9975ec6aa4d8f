// A case's inputs announced before the kernel runs on them.
//
// Why: a kernel that hangs (or ends its process) never returns, so the details a case carries
// with its verdict (dims, scale, seed, reproduce) would be lost with it. Every case draws its
// inputs through prepare_case, which announces them here first; under supervision the verdict
// channel listens and sends them to the supervisor, so that the record of a case killed as hung
// says which inputs it hung on and how to replay it.
#pragma once

#include <functional>

#include "framework/cases/case_outcome.h"

namespace rkt {

/// Receives every announcement (the verdict channel installs one; none outside supervision).
using CaseInputsListener = std::function<void(const CaseDetails& details)>;
void set_case_inputs_listener(CaseInputsListener listener);

/// Tells the listener, if any, that the running case is about to call its kernel on the inputs
/// `details` describe. Silent while a WithheldCaseInputs is alive.
void announce_case_inputs(const CaseDetails& details);

/// While alive, nothing is announced: a hidden case's inputs are as secret as its message, and a
/// benchmark's inputs would come with a replay command for a case `rkt test` does not register.
class WithheldCaseInputs {
 public:
  WithheldCaseInputs();
  ~WithheldCaseInputs();
  WithheldCaseInputs(const WithheldCaseInputs&) = delete;
  WithheldCaseInputs& operator=(const WithheldCaseInputs&) = delete;
};

}  // namespace rkt
