// The libraries a shared object names as its dependencies (its ELF DT_NEEDED entries), read from
// the file without loading it. The worker loads LibTorch's calls (the plugin, with LibTorch's
// symbols global) before a kernel library that links LibTorch, as a worker linked to LibTorch
// did until 3b11ad1: on the GPU, every worker that opened such a library first, LibTorch coming
// in with it (RTLD_LOCAL), died while starting (run 42, docs/gpu_runs.md).
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// The DT_NEEDED names of the 64-bit ELF shared object at `path`, in order; empty when the file
/// cannot be read or is no such object (dlopen then says why).
std::vector<std::string> needed_libraries(const std::string& path);

/// Whether `path` names LibTorch (libtorch*, libc10*) among its direct dependencies.
bool links_libtorch(const std::string& path);

}  // namespace rkt
