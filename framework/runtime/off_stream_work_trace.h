// The work a kernel call left running off the stream it was given, read from the GPU's own clock.
//
// The escaped-work gate asks whether anything the call started is still running when the call's
// stream has finished it. Timing that on the host (the call's start to a device-wide
// synchronisation, against the stream's events) is only as exact as the host's clock, and another
// process sharing the GPU delays it: it needed the GPU alone. CUPTI's activity records give every
// kernel, copy and set of this process its stream and its start and end on the GPU, so the
// answer is exact and holds while other judges share the device: a marker (a small memset) is
// queued on the stream right behind the call, and work on any other stream that ends after the
// marker began escaped the call. Work forked onto another stream and joined back before return
// ends before the marker, because the marker waits for the join.
//
// CUPTI is loaded with dlopen (LibTorch's libtorch_cpu already needs libcupti): a build without
// its headers, a process where it cannot be loaded or enabled (another profiler holds it) reports
// why, and the gate falls back to the host clock with the GPU held alone (integrity_cases.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rkt {

/// One kernel, copy or set that ran on the device, as its activity record tells it.
struct DeviceActivity {
  std::uint32_t stream = 0;  ///< CUPTI's id of the stream it ran on
  std::uint64_t start_nanoseconds = 0;
  std::uint64_t end_nanoseconds = 0;
  bool stream_end_marker = false;  ///< the marker this trace queued behind the call
  std::string what;                ///< "kernel <name>", "copy" or "set", for messages
};

/// How far the work off the stream outlasted the call on it.
struct OffStreamOverrun {
  double milliseconds = 0;  ///< [ms] the last such end after the marker began; 0 when none
  std::string latest;       ///< what ended last past the marker ("" when nothing did)
};

/// The overrun of `activities` for the call on `stream`: the marker is the last marker record on
/// that stream; only records on other streams count (the framework's own checks follow the
/// marker on the call's stream). std::nullopt when no marker is among the records.
std::optional<OffStreamOverrun> off_stream_overrun(const std::vector<DeviceActivity>& activities,
                                                   std::uint32_t stream);

/// "0" turns the trace off in a judge (the escaped-work gate then uses the host clock with the GPU
/// held alone): for a run under a profiler that holds CUPTI, and to compare the two clocks. The
/// judge passes it on to its workers, which then do not load CUPTI at all.
inline constexpr const char* kOffStreamTraceVariable = "RKT_TRACE_OFF_STREAM_WORK";

/// "" when this process can trace device work (CUPTI loads and has what the trace calls, and
/// kOffStreamTraceVariable is not "0"); else a sentence saying why not. Loads CUPTI on the first
/// call; never enables anything.
std::string off_stream_tracing_unavailable_reason();

/// Starts CUPTI's activity tracing once and stops it again (one set on the device in between):
/// a worker calls it before entering its sandbox, where CUPTI's start-up cannot read the clock
/// source it needs (/sys/devices/system/clocksource). Returns "" or why not; never throws.
std::string prepare_off_stream_tracing();

/// Records this process's device work while it lives (one trace at a time in a process).
class OffStreamWorkTrace {
 public:
  /// Starts recording for a call on `stream` (a cudaStream_t). Never throws: when recording
  /// could not start, untraced_reason() says why and the other members do nothing.
  explicit OffStreamWorkTrace(void* stream);
  ~OffStreamWorkTrace();
  OffStreamWorkTrace(const OffStreamWorkTrace&) = delete;
  OffStreamWorkTrace& operator=(const OffStreamWorkTrace&) = delete;

  /// Queues the marker on the stream: right after the call's end event, before anything else.
  void mark_stream_end();
  /// After a device-wide synchronisation: stops recording and returns the overrun, or
  /// std::nullopt with untraced_reason() saying why it could not be read. A trace that started
  /// but lost the marker's record (something in the process changed CUPTI's state) returns an
  /// infinite overrun, `latest` saying so.
  std::optional<OffStreamOverrun> finish();
  const std::string& untraced_reason() const { return untraced_reason_; }

 private:
  void start();
  void stop() noexcept;

  void* stream_;
  std::uint32_t stream_id_ = 0;
  bool recording_ = false;
  std::string untraced_reason_;
};

}  // namespace rkt
