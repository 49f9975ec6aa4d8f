// The sanitizer cases: a CUDA kernel's small-size call run in a worker under compute-sanitizer
// (memcheck, racecheck, synccheck, initcheck), the sandbox kept. They find what no output
// comparison can: reads past an end (memcheck; the buffers are exactly their data, no redzones),
// races on shared memory, divergent barriers and shuffles with exited lanes, reads of memory
// nobody wrote. The first finding becomes the case's message.
#pragma once

#include <string>
#include <vector>

#include "framework/cases/case_outcome.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

enum class SanitizerTool { memcheck, racecheck, synccheck, initcheck };

/// Every tool, in the order the cases run.
const std::vector<SanitizerTool>& all_sanitizer_tools();
/// "memcheck", ...: compute-sanitizer's --tool value and the case name's suffix.
const char* to_string(SanitizerTool tool);

/// Why `tool`'s case is skipped on every kernel, or "" when it runs. initcheck is off unless
/// RKT_SANITIZER_INITCHECK=1: on the H200 (runs 19 and 20, compute-sanitizer 2025.3.1, driver
/// 580) a worker under initcheck never answered, even for an honest kernel, so each case would
/// end at its timeout and fail a kernel that did nothing wrong.
std::string sanitizer_tool_disabled_reason(SanitizerTool tool);

/// compute-sanitizer's path: $RKT_COMPUTE_SANITIZER, else $CUDA_HOME/bin, /usr/local/cuda/bin, then
/// PATH; "" when none is executable.
std::string compute_sanitizer_path();

/// What a compute-sanitizer log says.
struct SanitizerLog {
  bool summarised = false;  ///< The log ends with the tool's summary (the run was complete).
  int errors = 0;
  /// The first finding on one line: what, where (kernel function, file:line), which thread and
  /// address, e.g. "Invalid __global__ read of size 4 bytes; at relu_reads_past_end(...)+0x70 in
  /// bounds_cheats.cu:41; by thread (36,0,0) in block (43,0,0); Address 0x7f... is out of bounds".
  std::string first_finding;
};
SanitizerLog read_sanitizer_log(const std::string& text);

/// Why the call of `tool`'s case for kernel `kernel_id`, still running `seconds_since_case_start`
/// after the case began and with no finding, is ended now ("" while it goes on): the kernel has
/// failed another case in this process (failed_cases.h) and the call has had
/// defaults::kSanitizerSecondsAfterKernelFailed. The kernel fails whatever the tool would say;
/// after an invalid access the sanitized worker can stay silent until the case's limit (runs 22,
/// 40, 41, 43), holding the GPU's lease, so that every other judge's benchmark waits for it.
std::string sanitizer_call_cut_short_reason(const std::string& kernel_id, SanitizerTool tool,
                                            double seconds_since_case_start);

/// Runs `kernel` once at `task`'s small dims in a worker under compute-sanitizer's `tool`, then
/// judges the log and the outputs. Skipped without a GPU, without compute-sanitizer, or in-process
/// (there is no worker to run under it). Never throws.
CaseOutcome run_sanitizer_case(const KernelSpec& kernel, const TaskSpec& task, SanitizerTool tool);

}  // namespace rkt
