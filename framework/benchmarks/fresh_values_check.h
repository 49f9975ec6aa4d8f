// The benchmark's fresh-values check. The timed loop calls the kernel many times on the same few
// buffers, whose values never change: a kernel that computes its first calls and then keeps
// what the buffers already hold, or copies a result it saved (results reused by pointer or by
// call count, the known cheat 11), times as fast as a copy, and the spot checks of the loop's
// last outputs pass. The integrity_replay case calls a kernel five times; a kernel that waits
// for its sixth sighting of a buffer passes it. After the loop this check draws new values into
// the very buffers the timed calls read, calls the kernel on them as the loop did, and judges the
// outputs against the new values' references. A kernel that checks its inputs' values before
// reusing (a memo on a sample of the values) computes these calls honestly and passes that: but
// its first call on each set's new values then takes what computing takes, and the loop's calls
// much less. The check calls each set again on its new values and refuses the loop's time when
// the first calls are slower than the calls after them, which ran under the same load. A reuse
// that waits for more than kFreshValuesRepeats calls on the same values computes all of those
// calls: then the repeated calls are slower than the loop's, whose values never changed over
// hundreds of calls, and the loop's time is refused for that too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "framework/benchmarks/kernel_call_set.h"
#include "framework/runtime/cuda_runtime_device.h"
#include "rkt/task.h"

namespace rkt {

/// Calls on each set after its first on the same fresh values: what the first calls are
/// compared with.
inline constexpr int kFreshValuesRepeats = 8;  // [calls per set]
/// The first calls on fresh values may take at most this many times the repeated calls, and the
/// repeated calls this many times the timed loop's matching call ...
inline constexpr double kFreshValuesSlowdownLimitCuda = 1.5;  // [x the fastest repeated call]
/// (A CPU learns the branches of values it is called on again and again: the honest
/// rkb_mnist_conv_relu_pool_backward/cpu_loops took 1.7-1.9x longer on its first calls, in 3 of
/// 3 draws on the 2-core machine; matmul/cheat_reuses_by_values 2.4-3.5x.)
inline constexpr double kFreshValuesSlowdownLimitCpu = 2.2;  // [x the fastest repeated call]
/// ... or this much more (a few samples' noise: a launch, a cold page), whichever is larger.
inline constexpr double kFreshValuesMarginMsCuda = 0.01;  // [ms]
inline constexpr double kFreshValuesMarginMsCpu = 0.005;  // [ms]
/// Draws of fresh values before slow first calls refuse the time: an honest kernel slowed once
/// by a loaded machine passes the next draw; a kernel that reuses results is slow on each.
inline constexpr int kFreshValuesAttempts = 3;  // [draws]
/// A draw too slow by either comparison does not count when an empty request (the judge's cache
/// flush and clock marks, judge_empty_request_now_ms) measured right after it costs more than
/// this many times its calibration: the machine was loaded then, and a loaded machine slows every
/// call, a whole draw's as much as its first calls (CI at d71c7eb: the honest
/// softmax/waives_borrowed_gate under ctest -j2 on two cores, repeated calls of 2.8-3.5 ms against
/// the loop's 0.2 ms, refused as a reuse in three draws of three).
inline constexpr double kFreshValuesLoadedFactor = 2.0;  // [x the calibrated empty request]
/// Draws set aside for the load before the check stops: the loop's time is then refused for the
/// machine's load (a benchmark problem, as a loop refused for the load), not as a reuse.
inline constexpr int kFreshValuesLoadedDrawsMax = 4;  // [draws]
/// The pause after a draw set aside for the load, for the load to pass.
inline constexpr int kFreshValuesLoadPauseMilliseconds = 200;  // [ms]
/// The loop's fastest samples never compared with, however few samples it took: a loop that met
/// its noise target in 10 samples had one at 0.19 ms against 0.30 ms for the nine others, and
/// the honest relu/batch_34_float4_checked_64_again1 was refused as a reuse (H100, 2026-12-07,
/// run 46). A reuse makes every loop call fast, so its third fastest is as fast as its fastest.
inline constexpr int kFreshValuesLoopFastestSetAside = 2;  // [samples]

struct FreshValuesCheck {
  int checked = 0;      ///< [sets] judged after the fresh values' calls
  int failures = 0;     ///< [sets] whose outputs were wrong for the values the buffers held
  std::string message;  ///< the first failure's, with what the check did
  /// In every draw the first calls were slower than the repeated calls allow, or the repeated
  /// calls slower than the loop's: the loop's time is refused.
  bool loop_time_refused = false;
  /// Every draw too slow came while the machine was loaded (kFreshValuesLoadedFactor), more than
  /// kFreshValuesLoadedDrawsMax of them: nothing is known of a reuse, and the time is refused
  /// for the load.
  bool refused_for_load = false;
  std::string refusal;  ///< why, with the times (either refusal)
};

/// Whether an empty request that costs `empty_now_ms` now, against its calibration
/// `empty_calibrated_ms`, says the machine is loaded enough to set a slow draw aside.
bool loaded_for_fresh_values(double empty_now_ms, double empty_calibrated_ms);

/// The timed loop's call that the fastest of `calls` repeated calls is compared with: the
/// loop's sample at quantile 1/(calls + 1) (sorted, index samples/(calls + 1)), where the fastest
/// of `calls` draws from the loop's own times typically falls. Not the loop's fastest: a loop of
/// hundreds of samples has a lower tail that 16 calls rarely reach (relu/batch_06_grid_stride_128,
/// H100 run 45: a grid-stride kernel with a fixed 4096-block grid, loop fastest 0.229 ms, first
/// quartile 0.387 ms, repeated calls 0.372-0.376 ms in three draws: refused though honest). Not
/// the median either: a loaded machine only adds time to a call, and a loop whose median it
/// inflated hid a 4x reuse under the CPU's 2.2x (CI at 3dd3a0c:
/// matmul/cheat_reuses_after_many_calls timed in three runs of three). Never one of the loop's
/// kFreshValuesLoopFastestSetAside fastest while it has more samples than that. 0 when there are
/// no samples.
double loop_time_matching_fastest_of(std::vector<double> loop_samples, std::size_t calls);

/// Draws new values (a seed of their own, the benchmark's distribution and dims) into every
/// set's input buffers in place, poisons the outputs, then calls the kernel on every set: in a
/// worker as one more request shaped as the timed loop's (flushed caches, rotating sets: from
/// the kernel's side a request like the others), in process once per set after the same
/// preparation as a timed sample, timed on `scope` (the kernel's stream); 1 + kFreshValuesRepeats
/// calls per set. Judges every set's outputs (after the first draw) against the references of
/// its new values, and compares the fastest first call with the fastest of the last round (as
/// many calls: a loaded machine slows the fastest of few calls more than the fastest of many),
/// and the fastest repeated call with the loop's call that matches it
/// (loop_time_matching_fastest_of(`loop_samples`, repeated calls); no samples: the loop's time
/// was refused, nothing to compare), each within the same limit (up to kFreshValuesAttempts
/// draws while either is too slow; a slow draw on a loaded machine does not count, up to
/// kFreshValuesLoadedDrawsMax of them).
FreshValuesCheck check_fresh_values(const KernelSpec& kernel, const TaskSpec& task,
                                    std::vector<std::unique_ptr<KernelCallSet>>& sets,
                                    LightStreamScope& scope,
                                    const std::vector<double>& loop_samples);

}  // namespace rkt
