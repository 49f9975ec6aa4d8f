// A planted error for each compute-sanitizer tool, run by `rkt-worker --sanitizer-probe TOOL`
// under that tool: the judge asks once per machine whether the tool reports what it is for
// (framework/cases/sanitizer_tool_check.h). On the H100 of run 45 memcheck reported 0 errors
// for a plain program that read one past its own cudaMalloc, which faulted without the tool: a
// sanitizer case that passes there vouches for nothing.
#pragma once

#include <string>

namespace rkt {

/// Runs the planted error for `tool` (rkt-worker's wire::kSanitizerProbeArgument) ("memcheck": a
/// read one past a cudaMalloc'd buffer; "racecheck": each thread reads a shared slot another warp
/// writes, with no barrier; "synccheck": a lane calls __syncwarp with a mask that leaves it out)
/// and synchronises. Returns 0 when the call ended without a CUDA error, 1 when CUDA reported one,
/// 2 for an unknown tool or a build without CUDA; says what happened on standard error.
int run_sanitizer_probe(const std::string& tool);

}  // namespace rkt
