// Where a judge process spends its time: drawing inputs, running references, calling the kernel,
// comparing outputs, timing. Each phase is a scope (ScopedPhase); a nested scope pauses the one
// around it, so the phases never count the same millisecond twice. The totals travel from a
// supervised child to its parent with each case's verdict (supervision/verdict_channel.cpp) and
// end in the report's time breakdown (runs/run_report.cpp): issue 18 asks a run to say where its
// time went.
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace rkt {

enum class Phase : std::size_t {
  drawing,       ///< drawing inputs and placing them in the kernel's buffers
  references,    ///< the float64 reference and the honest samples of a claimed class
  kernel_calls,  ///< calls of the kernel (in the worker: the round trip included)
  comparison,    ///< judging outputs against the reference
  timing,        ///< the benchmark's timed calls of the kernel
  /// buffers a worker maps: the judge's allocations, exports, copies into them and frees, and
  /// the worker's mapping and unmapping of them (reported in its reply)
  buffer_sharing,
  /// waiting for the GPU's lease (framework/timing/device_lease.h): another judge timing on it,
  /// or, to time, this judge's own cases and the other judges' (run 43: where a 50-file batch's
  /// slow honest files spent their time was not recorded)
  device_wait,
  /// the benchmark's baselines: building their runners (a compiled package's load and its
  /// check), their timed calls and their peak memory (run 45: a served verdict's benchmark
  /// timed its kernel and both eager baselines as one "timing" phase, 0.74 s, so whether
  /// caching the baselines would pay could not be read)
  baselines,
};
inline constexpr std::size_t kPhaseCount = 8;

/// Milliseconds per phase.
struct PhaseTimes {
  std::array<double, kPhaseCount> milliseconds{};

  double& operator[](Phase phase) { return milliseconds[static_cast<std::size_t>(phase)]; }
  double operator[](Phase phase) const { return milliseconds[static_cast<std::size_t>(phase)]; }
  double total() const;
  PhaseTimes& operator+=(const PhaseTimes& other);
  PhaseTimes operator-(const PhaseTimes& earlier) const;
};

/// "drawing", "references", "kernel_calls", "comparison", "timing", "buffer_sharing",
/// "device_wait", "baselines".
const char* to_string(Phase phase);

/// This process's totals so far (scopes still open count up to now).
PhaseTimes process_phase_times();

/// "drawing=12.5 references=3 ..." (milliseconds) and back; unknown keys are ignored, missing
/// ones are zero.
std::string format_phase_times(const PhaseTimes& times);
PhaseTimes parse_phase_times(const std::string& text);

/// Moves `milliseconds` already counted against the innermost open scope to `phase`: time
/// measured elsewhere (the worker's mapping of buffers, inside a kernel call's round trip). At
/// most what that scope has counted moves.
void reassign_phase_time(Phase phase, double milliseconds);

/// Counts the time until its end against `phase` (and not against an enclosing scope's phase).
class ScopedPhase {
 public:
  explicit ScopedPhase(Phase phase);
  ~ScopedPhase();
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  bool open_ = false;  ///< false on threads other than the main one, which alone counts
};

}  // namespace rkt
