// The two commands of a kernel author without a CMake project: `rkt template` (a skeleton to
// start from) and `rkt eval` (source files in, verdicts out). Both answer before the judge loads
// its own kernel library: eval judges libraries it compiles, each in child judges of their own.
#pragma once

#include <string>
#include <vector>

#include "framework/isolation/kernel_library.h"

namespace rkt {

/// `rkt template TASK [--device cuda|cpu]`: prints the task's kernel skeleton; exit 2 for an
/// unknown task (with the nearest ids) or a bad option.
int run_template_command(const std::vector<std::string>& args);

/// `rkt eval FILE... [--task ID] [--out DIR] [--json] [--jobs N] [--timeout S]
/// [--benchmark-timeout S]` (framework/eval/eval_job.h). `judge` is this executable; `kernels`
/// says where its rkt-worker is (an installed judge finds the package's headers from it).
int run_eval_command(const std::vector<std::string>& args, const std::string& judge,
                     const KernelLibraryLocation& kernels);

}  // namespace rkt
