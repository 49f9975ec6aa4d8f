#include "framework/base/phase_times.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <sstream>
#include <vector>

namespace rkt {
namespace {

using Clock = std::chrono::steady_clock;

// Phases are counted on the process's main thread only, where the judge runs its cases. A scope
// on another thread (a helper thread of a parallel loop, a sanitizer case's thread beside the
// cases waiting for its share of the GPU) counts nothing, since its time overlaps the main
// thread's and would be counted twice. (The first thread to open a scope used to own the count:
// where a sanitizer case beside opened one first, the judge's own phases all went uncounted, and
// run 45's served verdicts reported every second as "the rest".)
bool on_main_thread() { return ::syscall(SYS_gettid) == ::getpid(); }

struct PhaseClock {
  std::mutex mutex;
  PhaseTimes totals;
  struct OpenScope {
    Phase phase;
    double counted_ms = 0;  ///< what this scope has counted so far (never its nested ones')
  };
  std::vector<OpenScope> open;  ///< innermost last
  Clock::time_point since{};

  // Charges the time since `since` to the innermost open phase.
  void charge(Clock::time_point now) {
    if (!open.empty()) {
      const double elapsed = std::chrono::duration<double, std::milli>(now - since).count();
      totals[open.back().phase] += elapsed;
      open.back().counted_ms += elapsed;
    }
    since = now;
  }
};

PhaseClock& phase_clock() {
  static PhaseClock* clock = new PhaseClock;  // never destroyed: scopes may close during exit
  return *clock;
}

}  // namespace

double PhaseTimes::total() const {
  double sum = 0;
  for (double ms : milliseconds) sum += ms;
  return sum;
}

PhaseTimes& PhaseTimes::operator+=(const PhaseTimes& other) {
  for (std::size_t i = 0; i < kPhaseCount; ++i) milliseconds[i] += other.milliseconds[i];
  return *this;
}

PhaseTimes PhaseTimes::operator-(const PhaseTimes& earlier) const {
  PhaseTimes difference;
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    difference.milliseconds[i] = milliseconds[i] - earlier.milliseconds[i];
  }
  return difference;
}

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::drawing: return "drawing";
    case Phase::references: return "references";
    case Phase::kernel_calls: return "kernel_calls";
    case Phase::comparison: return "comparison";
    case Phase::timing: return "timing";
    case Phase::buffer_sharing: return "buffer_sharing";
    case Phase::device_wait:
      return "device_wait";
    case Phase::baselines:
      return "baselines";
  }
  return "unknown";
}

PhaseTimes process_phase_times() {
  PhaseClock& clock = phase_clock();
  std::lock_guard<std::mutex> lock(clock.mutex);
  clock.charge(Clock::now());
  return clock.totals;
}

std::string format_phase_times(const PhaseTimes& times) {
  std::ostringstream text;
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    if (i > 0) text << " ";
    text << to_string(static_cast<Phase>(i)) << "=" << times.milliseconds[i];
  }
  return text.str();
}

PhaseTimes parse_phase_times(const std::string& text) {
  PhaseTimes times;
  std::istringstream fields(text);
  std::string field;
  while (fields >> field) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) continue;
    const std::string key = field.substr(0, equals);
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      if (key != to_string(static_cast<Phase>(i))) continue;
      try {
        times.milliseconds[i] = std::stod(field.substr(equals + 1));
      } catch (const std::exception&) {
        times.milliseconds[i] = 0;
      }
    }
  }
  return times;
}

void reassign_phase_time(Phase phase, double milliseconds) {
  PhaseClock& clock = phase_clock();
  std::lock_guard<std::mutex> lock(clock.mutex);
  if (!on_main_thread() || clock.open.empty()) return;
  clock.charge(Clock::now());
  PhaseClock::OpenScope& scope = clock.open.back();
  const double moved = std::max(0.0, std::min(milliseconds, scope.counted_ms));
  scope.counted_ms -= moved;
  clock.totals[scope.phase] -= moved;
  clock.totals[phase] += moved;
}

ScopedPhase::ScopedPhase(Phase phase) {
  if (!on_main_thread()) return;
  PhaseClock& clock = phase_clock();
  std::lock_guard<std::mutex> lock(clock.mutex);
  clock.charge(Clock::now());
  clock.open.push_back({phase});
  open_ = true;
}

ScopedPhase::~ScopedPhase() {
  if (!open_) return;
  PhaseClock& clock = phase_clock();
  std::lock_guard<std::mutex> lock(clock.mutex);
  clock.charge(Clock::now());
  clock.open.pop_back();
}

}  // namespace rkt
