// Every default of a test run, defined once with its unit. The CLI help and README quote these.
#pragma once

#include <cstdint>

namespace rkt::defaults {

/// rapidcheck trials per property for CPU kernels (RC_PARAMS="max_success=N" overrides).
inline constexpr int kPropertyTrialsCpu = 40;  // [trials]
/// rapidcheck trials per property for CUDA kernels: each trial runs at up to 2x the benchmark size.
inline constexpr int kPropertyTrialsCuda = 12;  // [trials]
/// Largest total size of a property trial's inputs on the CPU.
inline constexpr std::int64_t kPropertyInputBudgetCpu = 64ll << 20;  // [bytes]
/// Largest total size of a property trial's inputs on a GPU.
inline constexpr std::int64_t kPropertyInputBudgetCuda = 2ll << 30;  // [bytes]
/// Property tests draw each dim up to this multiple of the size the kernel is tested at.
inline constexpr std::int64_t kPropertyMaxDimFactor = 2;  // [x test size]
/// Property tests draw scales log-uniformly in [10^-d, 10^d] with a random sign; this is d.
inline constexpr int kPropertyScaleDecades = 3;  // [decades]
/// A kernel's test process is killed after this long (robust-kbench uses 300 s per stage).
inline constexpr int kKernelProcessTimeoutSeconds = 300;  // [s]

// ---- Isolation (docs/threat_model.md, "The trust boundary") ----------------------------------
/// A worker that has not answered a request this long is killed as hung; the case fails and a
/// fresh worker runs the next one. Shorter than the process timeout, so the judge says which
/// kernel hung rather than being killed itself.
inline constexpr int kWorkerReplyTimeoutSeconds = 120;  // [s]
/// A worker's start: loading LibTorch, the kernel library and a CUDA context.
inline constexpr int kWorkerStartupTimeoutSeconds = 120;  // [s]
/// Timed calls per measure request: the judge checks the stopping rule and the worker's times
/// against its own clock between requests.
inline constexpr int kWorkerSamplesPerRequest = 10;  // [samples]
/// The judge's wall time of a measure request must not exceed the worker's claimed kernel time
/// plus the same request's cost with an empty kernel by more than this fraction...
inline constexpr double kTimingCrossCheckTolerance = 0.25;  // [fraction of the expected time]
/// ...plus this much per timed call (scheduling noise of two processes).
inline constexpr double kTimingCrossCheckSlackMilliseconds = 0.05;  // [ms per timed call]
/// Times are refused only over at least this many checked requests (more are taken when one
/// breaks the rule), and only when more than half of them break it.
inline constexpr int kTimingCrossCheckMinRequests = 3;  // [requests]

}  // namespace rkt::defaults

namespace rkt::defaults {

// ---- Benchmarks ------------------------------------------------------------------------------
/// Warm-up before the first timed sample, in wall-clock time (triton's do_bench uses ~25 ms).
inline constexpr double kBenchmarkWarmupMilliseconds = 25;  // [ms]
/// Samples are taken until the relative noise of the median is under this...
inline constexpr double kBenchmarkTargetNoise = 0.01;  // [fraction of the median]
/// ...with at least this many samples...
inline constexpr int kBenchmarkMinSamples = 10;  // [samples]
/// ...and at most this many...
inline constexpr int kBenchmarkMaxSamples = 2000;  // [samples]
/// ...or until this much timed work has been done on a GPU...
inline constexpr double kBenchmarkBudgetMillisecondsCuda = 1000;  // [ms of timed kernel work]
/// ...or on the CPU (kept small so CI exercises the engine in seconds).
inline constexpr double kBenchmarkBudgetMillisecondsCpu = 200;  // [ms of timed kernel work]
/// Wall-clock limit of one measurement (flushes and untimed work included) on a GPU...
inline constexpr double kBenchmarkWallLimitSecondsCuda = 20;  // [s]
/// ...and on the CPU, where each cache flush writes twice the last-level cache.
inline constexpr double kBenchmarkWallLimitSecondsCpu = 3;  // [s]
/// Input sets the timed calls rotate among, so no call sees the data of the call before.
inline constexpr int kBenchmarkInputSets = 4;  // [sets]
/// Timed calls whose outputs are checked against the reference, chosen at random.
inline constexpr int kBenchmarkSpotChecks = 3;  // [calls]
/// Bootstrap resamples for speedup confidence intervals.
inline constexpr int kBootstrapResamples = 2000;  // [resamples]
/// Confidence of the speedup intervals; a kernel is "faster" only when the whole interval is > 1.
inline constexpr double kSpeedupConfidence = 0.95;  // [probability]
/// A median below this fraction of the physical floor (minimal bytes at the measured copy
/// bandwidth, or flops at the measured peak) is flagged impossible. The margin covers the
/// measured peaks being a little below what the hardware can reach.
inline constexpr double kImpossibleFloorFraction = 0.9;  // [x floor]

}  // namespace rkt::defaults
