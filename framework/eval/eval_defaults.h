// The defaults of `rkt eval`, each defined once with its unit; the CLI help quotes them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rkt::eval_defaults {

/// A source file larger than this is refused (a bad record) before it reaches a compiler: a
/// kernel file is a few hundred lines; a megabyte is a generated or mistaken input.
inline constexpr std::int64_t kMaxSourceBytes = 1 << 20;  // [bytes]
/// Where compiled kernel libraries are cached unless kCacheVariable names a folder.
inline constexpr const char* kCacheFolderUnderHome = ".cache/rkt/eval";  // under $HOME
inline constexpr const char* kCacheVariable = "RKT_EVAL_CACHE";
/// The cache's size limit: past it the least recently used libraries are removed
/// (library_cache.h); a kernel library is about a megabyte.
inline constexpr std::int64_t kCacheLimitMegabytes = 4096;  // [MiB] kCacheLimitVariable overrides
inline constexpr const char* kCacheLimitVariable = "RKT_EVAL_CACHE_MB";
/// A compiler silent for this long is killed and the file gets a compile_error.
inline constexpr int kCompileTimeoutSeconds = 300;  // [s]
/// At most this many files included with `#include "..."` from beside a source are read into its
/// cache key (a guard against include cycles through links and generated trees).
inline constexpr std::size_t kMaxLocalIncludes = 256;  // [files]
/// A file's child judge (its kernels' cases and benchmarks) still running after this long is
/// killed; its kernels judged by then keep their records, the file gets a judge_timeout record.
inline constexpr int kFileTimeoutSeconds = 1200;  // [s] --file-timeout overrides
/// How many files' judges share one GPU at once (--judges-per-gpu overrides): most of a judge's
/// time is process starts, drawing and comparing, which overlap; their benchmarks still time one
/// at a time, each with the GPU to itself (framework/timing/device_lease.h). At most one judge
/// per kCoresPerJudge cores, so that starts and comparisons do not wait for the CPU.
inline constexpr int kMaxJudgesPerGpu = 4;  // [judges]
inline constexpr int kCoresPerJudge = 4;    // [cores]
/// How many of the compiler's error lines a compile_error record quotes.
inline constexpr int kCompileErrorLines = 8;  // [lines]

}  // namespace rkt::eval_defaults
