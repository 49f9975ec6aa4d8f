// One kernel source file to one kernel library, cached: the file checked (exists, readable, not
// empty, not over the size limit), the library looked up under a key that hashes the source's
// content, its name, the compiler, the flags and the GPU architecture, and compiled only when the
// cache lacks it. A failed compile is cached too (its log), so a batch rerun does not repeat it.
#pragma once

#include <string>
#include <vector>

#include "framework/eval/eval_toolchain.h"

namespace rkt {

/// What became of one source file before any kernel of it ran.
struct CompiledSource {
  std::string source;      ///< as given on the command line
  std::string key;         ///< the library hash (32 hex digits); "" when the file was unusable
  std::string library;     ///< the cached kernel library, when compiled
  /// "compiled", or why there is no library: "missing_file", "unreadable_file", "empty_file",
  /// "file_too_large", "not_a_kernel_source" (neither .cpp nor .cu), "compile_error",
  /// "signature_mismatch" (a kernel function that does not fit ROBUST_KERNEL_TEST),
  /// "no_registration" (no ROBUST_KERNEL_TEST line), "toolchain_error".
  std::string status;
  std::string message;     ///< the compiler's first errors, or the problem in a sentence
  bool cached = false;     ///< the library (or the failed compile) came from the cache
  double seconds = 0;      // [s] compiling (0 when cached)
  bool cuda = false;       ///< a .cu file (nvcc)

  bool compiled() const { return status == "compiled"; }
  /// A file the caller should not have given (missing, unreadable, empty, too large, not a
  /// source): a usage error, as opposed to a source that does not compile.
  bool bad_input() const;
};

/// The cache folder: $RKT_EVAL_CACHE, else $HOME/.cache/rkt/eval (eval_defaults.h).
std::string eval_cache_folder();

/// Checks, keys and compiles every file, `jobs` compilers at a time; results in `sources` order.
std::vector<CompiledSource> compile_sources(const std::vector<std::string>& sources,
                                            const EvalToolchain& toolchain,
                                            const std::string& cache_folder, int jobs);

/// The first errors of a compiler's output (kCompileErrorLines lines from the first error on).
std::string first_compiler_errors(const std::string& output);

}  // namespace rkt
