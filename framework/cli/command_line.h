// The `rkt` command line: list, test, run.
#pragma once

#include "framework/isolation/kernel_library.h"

namespace rkt {

/// Runs the `rkt` tool over the tasks linked into this executable and the kernels of the kernel
/// library at `kernels` (run in worker processes, or in this one with --in-process).
int run_command_line(int argc, char** argv, const KernelLibraryLocation& kernels);

}  // namespace rkt
