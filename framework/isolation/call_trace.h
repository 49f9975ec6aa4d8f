// Where one kernel call's time goes, call by call: RKT_CALL_TRACE=FILE appends a line per call
// in a worker to FILE (tab-separated, a header first), for finding what a case pays beyond the
// kernel. Off unless set; it changes no verdict.
#pragma once

#include <cstdint>
#include <string>

namespace rkt {

/// RKT_CALL_TRACE=FILE: each call in a worker appends a line to FILE.
inline constexpr const char* kCallTraceVariable = "RKT_CALL_TRACE";

/// One call, as the judge saw it [ms], with the worker's own figures from its reply.
struct TracedCall {
  std::string task;
  std::string kernel;
  std::int64_t bytes = 0;  ///< the inputs' and outputs' data [bytes]
  /// Outputs allocated and poisoned, inputs staged, redzones armed, the device synchronised.
  double preparing_milliseconds = 0;
  double asking_milliseconds = 0;   ///< request sent to reply read
  double worker_milliseconds = 0;   ///< inside the worker: request read to reply written
  double mapping_milliseconds = 0;  ///< the worker's mapping and unmapping
  double stream_milliseconds = 0;   ///< the kernel on its stream
  /// From the kernel's entry to the device idle after it returned, as the worker measured.
  double device_milliseconds = 0;
  double checking_milliseconds = 0;  ///< redzones checked and staged inputs returned
};

/// Whether RKT_CALL_TRACE is set.
bool call_trace_enabled();

/// Appends `call` to the trace file (a no-op when tracing is off).
void trace_call(const TracedCall& call);

}  // namespace rkt
