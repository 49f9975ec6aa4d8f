#include "framework/supervision/device_memory_retry.h"

#include "framework/isolation/device_memory_return.h"

namespace rkt {
namespace {

// The first line of a failure: enough to say what ran short.
std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }

}  // namespace

CaseOutcome run_again_alone_if_short_of_memory(CaseOutcome first,
                                               const std::function<CaseOutcome()>& run_alone) {
  if (first.status != CaseStatus::failed || !ran_out_of_device_memory(first.message)) return first;
  CaseOutcome again = run_alone();
  const std::string why =
      "the case's first run, with the GPU shared with other judges, ran out of device memory (" +
      first_line(first.message) + "); it was run again with the GPU alone";
  if (again.status == CaseStatus::failed) {
    again.message += "\n(" + why +
                     (ran_out_of_device_memory(again.message) ? ", and ran out of memory again"
                                                              : ", and failed so") +
                     ")";
  } else {
    again.message = why + (again.message.empty() ? "" : ": " + again.message);
  }
  return again;
}

}  // namespace rkt
