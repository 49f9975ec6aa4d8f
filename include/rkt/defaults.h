// Every default of a test run, defined once with its unit. The CLI help and README quote these.
#pragma once

#include <cstdint>

namespace rkt::defaults {

/// rapidcheck trials per property for CPU kernels (RC_PARAMS="max_success=N" overrides). With the
/// edge mixture below, 40 trials catch each measured bug class in at least 99 of 100 seeds
/// (docs/property_detection.md): a class drawn with probability 0.15 per trial is missed with
/// probability 0.85^40 = 0.15%.
inline constexpr int kPropertyTrialsCpu = 40;  // [trials]
/// Scale-property trials for CUDA kernels: each runs at the benchmark size.
inline constexpr int kPropertyTrialsCuda = 12;  // [trials]
/// Shape-property trials for CUDA kernels at edge-seeking dims within the small input budget
/// below: cheap (milliseconds each), so as many as the CPU gets.
inline constexpr int kPropertySmallTrialsCuda = 40;  // [trials]
/// ...and trials near and above the benchmark size (up to 2x, within kPropertyInputBudgetCuda):
/// few, since each costs a full-size reference; they catch what only large sizes show (index
/// overflow, grid limits, a fixed-size buffer).
inline constexpr int kPropertyFullSizeTrialsCuda = 3;  // [trials]
/// The small-shape trials of a CUDA shape property stop once they have taken this long (the
/// full-size trials still run); the case message says how many ran. Shrinking is cut short only
/// by kShrinkingWorkerLossLimit.
inline constexpr double kPropertySmallTrialsSecondsCuda = 60;  // [s]
/// Shrinking a failing property stops once this many more workers were lost to it (a kernel that
/// crashes at large sizes crashes at every smaller candidate above its threshold, and each crash
/// costs a worker start: run 38 measured 11.6 s of a crash candidate's 22 s in one shrink). The
/// counterexample is then the smallest failing trial run so far, and the message says so.
inline constexpr int kShrinkingWorkerLossLimit = 3;  // [workers lost while shrinking]
/// Once a kernel has lost its worker (the worker died, or its CUDA context was lost) in this many
/// cases of one judge, its later cases there are not run: it fails already, and each would start
/// workers of its own (run 43: a file that corrupts the device at the benchmark size took 87 s
/// of a 50-file batch, 15 cases each replacing the worker, one case 32 s).
inline constexpr int kWorkerLossCasesBeforeSkipping = 3;  // [cases]
/// Largest total size of a property trial's inputs on the CPU.
inline constexpr std::int64_t kPropertyInputBudgetCpu = 64ll << 20;  // [bytes]
/// Largest total size of a small-shape property trial's inputs on a GPU (cheap trials).
inline constexpr std::int64_t kPropertySmallInputBudgetCuda = 64ll << 20;  // [bytes]
/// Largest total size of a full-size property trial's inputs on a GPU.
inline constexpr std::int64_t kPropertyInputBudgetCuda = 2ll << 30;  // [bytes]

// ---- Edge-seeking dims (framework/dims/edge_dims.cpp) ------------------------------------------------
// Each property dim is drawn from a mixture. The shares sum to 1; each is there because a class of
// kernel bug hides outside it (docs/property_detection.md measures the detection rate of each).
/// The smallest value (1): kernels that assume two rows, two elements, a non-empty tail.
inline constexpr double kEdgeDimOneShare = 0.15;  // [fraction of draws]
/// The next two values (2, 3): fewer elements than a vector load or a warp.
inline constexpr double kEdgeDimTinyShare = 0.10;  // [fraction of draws]
/// g-1, g, g+1 at a multiple of a granularity g (4 ... 1024, and the test size): tails and tiles.
inline constexpr double kEdgeDimGranularityShare = 0.30;  // [fraction of draws]
/// Primes next to powers of two (and below 64): odd, and a multiple of nothing.
inline constexpr double kEdgeDimPrimeShare = 0.10;  // [fraction of draws]
/// Uniform over the whole range.
inline constexpr double kEdgeDimUniformShare = 0.15;  // [fraction of draws]
/// Large: above 1.5x the test size (fixed-size buffers sized for the benchmark); the remainder.
inline constexpr double kEdgeDimLargeShare =
    1 - kEdgeDimOneShare - kEdgeDimTinyShare - kEdgeDimGranularityShare - kEdgeDimPrimeShare -
    kEdgeDimUniformShare;  // [fraction of draws]
/// Full-size trials: share of dims drawn above 1.5x the test size...
inline constexpr double kFullSizeDimLargeShare = 0.5;  // [fraction of draws]
/// ...at the test size or one away from it; the rest uniform between the test size and the top.
inline constexpr double kFullSizeDimTestEdgeShare = 0.25;  // [fraction of draws]
/// Property tests draw each dim up to this multiple of the size the kernel is tested at.
inline constexpr std::int64_t kPropertyMaxDimFactor = 2;  // [x test size]
/// Shape trials across the task's whole declared domain (a shape property's last phase, on every
/// device), per domain dim: each trial takes one dim, drawn by rapidcheck, to the domain's far
/// edge (the others stay at the test size, halved to fit the budget), so a kernel wrong only from
/// N = 1024 or 4096 up, inside a domain reaching 32768, is tested there.
inline constexpr int kPropertyWholeDomainTrialsPerDim = 4;  // [trials per domain dim]
/// The reaching dim is the domain's maximum with this probability, else log-uniform between the
/// test size and the maximum. For softmax (2 dims, N up to 32768) a bug from N >= 4096 up is then
/// missed with probability (1 - 0.5 x (0.9 + 0.1 x 0.44))^8 = 0.6% (docs/property_detection.md
/// measures it; at 0.85 it missed 2 seeds in 100).
inline constexpr double kWholeDomainMaxShare = 0.9;  // [fraction of draws]
/// Largest total size of a whole-domain trial's inputs on the CPU (kept small: CPU loop kernels
/// and the float64 reference run at it).
inline constexpr std::int64_t kPropertyWholeDomainInputBudgetCpu = 4ll << 20;  // [bytes]
/// ...and on a GPU.
inline constexpr std::int64_t kPropertyWholeDomainInputBudgetCuda = 256ll << 20;  // [bytes]
/// Property tests draw scales log-uniformly in [10^-d, 10^d] with a random sign; this is d.
inline constexpr int kPropertyScaleDecades = 3;  // [decades]
// ---- Value families (framework/cases/value_families.cpp) ----------------------------------------------
/// offset: data inputs shifted by this many standard deviations of their values. One-pass variance
/// (E[x^2] - E[x]^2 in float32) loses about (offset/std)^2 x 2^-24 x sqrt(N) of the variance;
/// a two-pass or Welford kernel loses about offset/std x 2^-24 x sqrt(N). At 10 the first is well
/// outside fp32's 1e-5 error norm at N = 300 and the second inside it (float32 loops over 37 rows
/// of 300: one-pass 3.6e-5, Welford 2.3e-6; at 3 the one-pass kernel passes, at 30 Welford
/// comes within 2x of the bound at N = 600). Value-family cases run at the task's small size.
inline constexpr double kValueOffsetStds = 10;  // [x std of the input]
/// mixed_magnitudes: each element multiplied by 10^u, u uniform in [-d, d]; this is d.
inline constexpr double kValueMixedDecades = 3;  // [decades]
/// ties: values rounded to multiples of this fraction of their standard deviation.
inline constexpr double kValueTieGridStds = 0.25;  // [x std of the input]
/// signed_zeros_denormals: the share of elements replaced by +0, -0 or a denormal.
inline constexpr double kValueSpecialShare = 0.25;  // [fraction of elements]

/// A kernel's test process is killed after this long (robust-kbench uses 300 s per stage).
inline constexpr int kKernelProcessTimeoutSeconds = 300;  // [s]
/// A case running this long in a ctest entry is killed as hung: the entries are a local loop, where
/// waiting 300 s per hung case is too long. Twice the longest honest case seen under CI's load:
/// the CPU loops' causal attention backward property case draws whole-domain trials at S = 4096
/// (22-57 s for its two property cases on a quiet 2-core machine, 110-120 s under ctest -j2, where
/// 120 s killed it as hung once); on the H200 every shipped case takes far less.
inline constexpr int kCtestCaseTimeoutSeconds = 240;  // [s]
/// The main job's benchmark of one kernel is killed after this long silent, whatever --timeout
/// says about cases: timing a slow kernel and its baselines may take longer than any case. A
/// killed benchmark fails the kernel.
inline constexpr int kBenchmarkProcessTimeoutSeconds = 900;  // [s]
/// The main job prints a line as each case ends and, while one case runs longer, a "still
/// running <case>, N s" line this often, so that long work never looks hung.
/// RKT_HEARTBEAT_SECONDS overrides it (the progress test uses 1).
inline constexpr int kCaseHeartbeatSeconds = 30;  // [s]

// ---- Isolation (docs/threat_model.md, "The trust boundary") ----------------------------------
/// A worker that has not answered a request this long is killed as hung; the case fails, the
/// kernel's other cases are not run (framework/isolation/worker_hangs.h) and a fresh worker runs
/// the next kernel's. Shorter than the process timeout, so the judge says which kernel hung
/// rather than being killed itself. RKT_WORKER_REPLY_TIMEOUT (seconds) overrides it: longer for a
/// kernel whose one call takes minutes, shorter for a quick loop.
inline constexpr int kWorkerReplyTimeoutSeconds = 120;  // [s]
/// After a CUDA call's own stream has completed, the whole device must be idle within this long:
/// work still running then (a persistent kernel, a side stream left spinning) is work the call
/// left behind; the case fails naming it and the worker is replaced, instead of the device-wide
/// synchronisation waiting for the reply timeout (framework/runtime/outputs_final_at_return.h).
inline constexpr double kDeviceIdleAfterReturnSeconds = 5;  // [s]
/// Once a kernel has returned calls, a later call that takes this many times its earlier calls'
/// time (scaled for more input bytes) is hung: generous enough for a value family that slows a
/// kernel 100-fold (denormals on a CPU), for another judge's work on the same GPU and for a
/// loaded machine (framework/isolation/hung_call_limit.h). RKT_HUNG_CALL_FACTOR overrides it.
inline constexpr double kHungCallFactor = 1000;  // [x the earlier call's time]
/// ...and never less than this: twice the worker's own wait for the device to go idle after a
/// call (kDeviceIdleAfterReturnSeconds), so that a call it reports on in time is never cut.
inline constexpr int kHungCallFloorSeconds = 10;  // [s]
/// A worker's start: loading LibTorch, the kernel library and a CUDA context.
inline constexpr int kWorkerStartupTimeoutSeconds = 120;  // [s]
/// A worker lent by the main job is loaded already: one that has not answered its new judge
/// this long is killed, and the judge starts one of its own.
inline constexpr int kWorkerAdoptTimeoutSeconds = 10;  // [s]
// ---- Buffer bounds and placement (framework/isolation/redzones.cpp) -------------------------------
/// Every buffer a kernel is handed has a redzone this large before and after it, filled with a
/// fresh random pattern before each call and checked after it (a changed byte fails the case).
/// Other harnesses shift buffers by 256 bytes for the same reason.
inline constexpr std::int64_t kRedzoneBytes = 256;  // [bytes]
/// A buffer's first element is aligned to this unless a case misaligns it on purpose.
inline constexpr std::int64_t kBufferAlignmentBytes = 256;  // [bytes]
/// The largest alignment a kernel may declare with requires_alignment().
inline constexpr std::int64_t kMaxDeclaredAlignmentBytes = 128;  // [bytes]

// ---- Sanitizer cases (framework/cases/sanitizer_cases.cpp) ----------------------------------------
/// A worker under compute-sanitizer: its start and one call (instrumented code runs 10-100x
/// slower, and racecheck slower still; the shipped kernels' take 1-3 s on the H200, and a worker
/// that stops answering after an invalid access is failed at this limit)...
inline constexpr int kSanitizerCallTimeoutSeconds = 60;  // [s]
/// ...and its exit, when the tool writes its summary.
inline constexpr int kSanitizerExitTimeoutSeconds = 30;  // [s]
/// Once the kernel has failed another case, its sanitizer case's call is ended this long after
/// the case began if the tool has named nothing (the kernel fails anyway; after an invalid access
/// the sanitized worker stayed silent until the case's limit in runs 22, 40, 41 and 43, holding
/// the GPU's lease: every other judge's benchmark waited 25-30 s). Honest calls take 1-3 s on the
/// H200, the worker's start under the tool included.
inline constexpr double kSanitizerSecondsAfterKernelFailed = 10;  // [s]

/// Timed calls per measure request on a GPU: the judge checks the stopping rule and the worker's
/// times against its own clock between requests...
inline constexpr int kWorkerSamplesPerRequestCuda = 10;  // [samples]
/// ...and on the CPU, where each call's cache flush takes tens of milliseconds (a round trip is
/// nothing beside it) and a smaller request overshoots the stopping rule by fewer flushed calls.
inline constexpr int kWorkerSamplesPerRequestCpu = 2;  // [samples]
/// The judge's wall time of a measure request must not exceed the worker's claimed kernel time
/// plus the same request's cost with an empty kernel by more than this fraction...
inline constexpr double kTimingCrossCheckTolerance = 0.25;  // [fraction of the expected time]
/// ...plus this much per timed call (scheduling noise of two processes).
inline constexpr double kTimingCrossCheckSlackMilliseconds = 0.05;  // [ms per timed call]
/// Times are refused only over at least this many checked requests (more are taken when one
/// breaks the rule), and only when more than half of them break it.
inline constexpr int kTimingCrossCheckMinRequests = 3;  // [requests]
/// While more than half of the checked requests break the rule, sampling goes on up to this
/// many requests before the times are refused: a burst of load then needs to last for most of
/// them, a forged time breaks every one.
inline constexpr int kTimingCrossCheckMaxRequests = 7;  // [requests]
/// Inputs are drawn in chunks of this many elements on the CPU, in parallel (a counter-based
/// generator: values depend on the seed and the element's index, not on threads or chunks;
/// framework/inputs/counter_random.h)...
inline constexpr std::int64_t kInputDrawChunkElements = std::int64_t{1} << 20;  // [elements]
/// ...and of this many on a GPU, one chunk after the other: it bounds the draw's temporaries
/// (about 24 bytes an element) while keeping each chunk large enough to fill the device.
inline constexpr std::int64_t kDeviceInputDrawChunkElements = std::int64_t{1} << 26;  // [elements]
/// The empty request's cost is the cheapest of this many flush-and-mark cycles in the judge...
inline constexpr int kTimingCalibrationRounds = 3;  // [cycles]
/// ...times the request's calls, plus this allowance for one round trip to the worker (a
/// datagram each way, the worker preparing its calls): a constant, because a round trip the
/// worker answers could be slowed down on purpose to hide kernel time.
inline constexpr double kTimingCrossCheckRoundTripMilliseconds = 1.0;  // [ms per request]
/// A CPU request the calibration does not explain is excused when an empty request that the
/// judge re-measures at once explains it (the machine is loaded), provided the worker stayed
/// idle meanwhile: it may use at most this fraction of the re-measurement on the processor...
inline constexpr double kTimingLoadCheckWorkerBusyFraction = 0.05;  // [fraction of the time]
/// ...plus this many clock ticks (sysconf(_SC_CLK_TCK)), the resolution of /proc/<pid>/stat.
inline constexpr int kTimingLoadCheckIdleClockTicks = 2;  // [ticks]
/// The judge watches the worker for at least this long: over a shorter window (a calibration
/// served from the cache, a few fast flushes) a spinning thread stays inside the tick allowance.
inline constexpr double kTimingLoadCheckMinimumWatchMilliseconds = 100.0;  // [ms]

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
/// A speedup measured on calls shorter than this (the kernel's median or the strongest
/// baseline's) is largely fixed per-call cost: LibTorch's dispatch of the eager baseline, a
/// launch, 5-20 us each, and a CPU kernel's cold caches after the flush. The reports show the
/// benchmark's size beside every speedup and warn below this (relu at B=37 N=300 on the CPU:
/// 0.05 ms a call).
inline constexpr double kShortBenchmarkCallMilliseconds = 0.1;  // [ms per call]
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
