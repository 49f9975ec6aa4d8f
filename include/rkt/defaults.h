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

}  // namespace rkt::defaults
