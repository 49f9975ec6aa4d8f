// How `rkt eval` builds a kernel library from one source file: the compiler, flags, headers and
// objects the package's own kernel libraries are built with (recorded at build time by
// cmake/RktEvalToolchain.cmake), and the command lines for a .cpp and a .cu file.
#pragma once

#include <string>
#include <vector>

namespace rkt {

struct EvalToolchain {
  std::string cxx_compiler;
  std::vector<std::string> cxx_flags;
  std::string cuda_compiler;  ///< nvcc; "" when none was found at build time.
  std::vector<std::string> cuda_flags;
  /// The GPU architecture a .cu file is compiled for: the visible GPU's (nvidia-smi), else the
  /// package's (90 unless the build chose another).
  std::string cuda_architecture;
  std::vector<std::string> include_dirs;
  std::string entry_object;        ///< kernel_library_entry's object (rkt_kernel_entry)
  std::string kernel_api_library;  ///< librkt_kernel_api.a: the registry each library holds
  std::string origin;              ///< "build tree" or "installed under PREFIX"
};

/// The toolchain of this judge: the installed package's files when `worker` is an installed
/// rkt-worker (PREFIX/bin/rkt-worker, the package's files under PREFIX), else the build tree's.
EvalToolchain eval_toolchain(const std::string& worker);

/// "" when every file the toolchain names exists; else a sentence naming the first missing one.
std::string toolchain_problem(const EvalToolchain& toolchain, bool cuda);

/// The command that compiles `source` (a .cpp, or a .cu with `cuda`) and links it into the
/// kernel library `library`, in one step.
std::vector<std::string> library_build_command(const EvalToolchain& toolchain, bool cuda,
                                               const std::string& source, const std::string& library);

/// What the library cache key covers besides the source: the command with its paths, and the
/// size and modification time of the compiler and of each object and library it links (a
/// rebuilt registry or a new compiler gives new keys).
std::string toolchain_fingerprint(const EvalToolchain& toolchain, bool cuda);

}  // namespace rkt
