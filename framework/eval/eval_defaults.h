// The defaults of `rkt eval`, each defined once with its unit; the CLI help quotes them.
#pragma once

#include <cstdint>

namespace rkt::eval_defaults {

/// A source file larger than this is refused (a bad record) before it reaches a compiler: a
/// kernel file is a few hundred lines; a megabyte is a generated or mistaken input.
inline constexpr std::int64_t kMaxSourceBytes = 1 << 20;  // [bytes]
/// Where compiled kernel libraries are cached unless kCacheVariable names a folder.
inline constexpr const char* kCacheFolderUnderHome = ".cache/rkt/eval";  // under $HOME
inline constexpr const char* kCacheVariable = "RKT_EVAL_CACHE";
/// A compiler silent for this long is killed and the file gets a compile_error.
inline constexpr int kCompileTimeoutSeconds = 300;  // [s]
/// How many of the compiler's error lines a compile_error record quotes.
inline constexpr int kCompileErrorLines = 8;  // [lines]

}  // namespace rkt::eval_defaults
