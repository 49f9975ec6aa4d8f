// Whether this machine's compute-sanitizer tool reports what it is for. A sanitizer case that
// passes says "the tool found nothing", which means something only where the tool finds what it
// looks for: on the H100 of run 45 (2026-12-07) memcheck reported 0 errors for a plain program
// reading one past its own cudaMalloc, which faulted without the tool. So before a tool's silence
// counts, the judge runs a planted error for it (`rkt-worker --sanitizer-probe TOOL`,
// framework/worker/sanitizer_probe.h) under that tool, once per machine: the answer is kept in
// kSanitizerCheckFolder, keyed by the GPU, its driver and the tool's path.
#pragma once

#include <string>

#include "framework/cases/sanitizer_cases.h"

namespace rkt {

/// Where the answers are kept (a machine's own: /tmp, mode 1777), unless RKT_SANITIZER_CHECK_DIR
/// names another folder.
inline constexpr const char* kSanitizerCheckFolder = "/tmp/rkt-sanitizer-checks";
inline constexpr const char* kSanitizerCheckFolderVariable = "RKT_SANITIZER_CHECK_DIR";
/// How long the planted error may run under its tool before the tool counts as silent.
inline constexpr int kSanitizerProbeTimeoutSeconds = 60;  // [s]

struct SanitizerToolCheck {
  bool reports_planted_error = false;
  /// What the probe's run showed, on one line: "memcheck reported the planted read one past a
  /// buffer (Invalid __global__ read ...)" or "... reported 0 errors for ...".
  std::string evidence;
};

/// What compute-sanitizer's `tool` does with a planted error, given a log's text and how the run
/// ended (`ended` as describe_outcome() says it, `timed_out`). Pure: the test's entry.
SanitizerToolCheck judge_sanitizer_probe(SanitizerTool tool, const std::string& log_text,
                                         const std::string& ended, bool timed_out);

/// The answer for `tool` at `sanitizer` on this process's GPU: from this process's memory, else
/// the folder's file when its key matches, else by running `worker` (rkt-worker's path) with
/// kSanitizerProbeArgument under the tool and keeping the answer. Safe from several threads.
SanitizerToolCheck check_sanitizer_tool(SanitizerTool tool, const std::string& sanitizer,
                                        const std::string& worker);

/// "a read one past a cudaMalloc'd buffer", ...: what the probe plants for `tool`.
const char* planted_error(SanitizerTool tool);

}  // namespace rkt
