// How long one call of a kernel in its worker may go unanswered before the worker is killed as
// hung.
//
// The reply timeout (kWorkerReplyTimeoutSeconds; RKT_WORKER_REPLY_TIMEOUT) bounds a call of a
// kernel nothing is known of. Once the kernel has returned calls in this judge (each worker's
// first call of it aside: it loads the kernel's code), a later call is
// bounded by what they took: kHungCallFactor times an earlier call's time, scaled by the square
// of how many times more argument bytes (inputs and outputs) this call has (an attention's
// work grows so with its sequence), the most generous of the earlier calls, and never under
// kHungCallFloorSeconds nor over the reply timeout. A kernel that hangs on some inputs then costs
// the floor, not the case's limit: in run 43 one that hung on small inputs held the GPU's lease for
// the batch's 30 s case limit while every other judge's benchmark waited for it.
//
// RKT_HUNG_CALL_FACTOR overrides the factor; 0 turns the bound off (the reply timeout alone).
#pragma once

#include <string>

namespace rkt {

inline constexpr const char* kHungCallFactorVariable = "RKT_HUNG_CALL_FACTOR";

/// A call's limit and what it was derived from.
struct HungCallLimit {
  int seconds = 0;    ///< [s] the reply timeout to pass to WorkerProcess::ask
  std::string basis;  ///< "" for the reply timeout; else how the limit was derived
};

/// Records that a call of `kernel_id` with `argument_bytes` of inputs and outputs returned after
/// `seconds` (the judge's round trip) from the worker with process id `worker`. The first call of
/// the kernel in each worker is not a measure: it loads the kernel's code.
void note_call_returned(const std::string& kernel_id, int worker, double seconds,
                        double argument_bytes);

/// The limit of the next call of `kernel_id` with `argument_bytes` of inputs and outputs. Throws
/// std::invalid_argument naming RKT_HUNG_CALL_FACTOR or RKT_WORKER_REPLY_TIMEOUT when either is
/// set to something that is not a number of its kind.
HungCallLimit hung_call_limit(const std::string& kernel_id, double argument_bytes);

/// Forgets every kernel's calls (tests).
void forget_returned_calls();

}  // namespace rkt
