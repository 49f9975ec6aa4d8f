// The `rkt` command line: list, test, run.
#pragma once

namespace rkt {

/// Runs the `rkt` tool over the kernels and tasks linked into this executable.
int run_command_line(int argc, char** argv);

}  // namespace rkt
