// A run folder on disk: results.json, report.md and report.html written together, and
// results.json read back into a RunReport (for `rkt compare` and `rkt merge`).
#pragma once

#include <string>

#include "framework/runs/run_report.h"

namespace rkt {

/// Writes DIR/results.json, report.md and report.html, each atomically (a crash mid-write leaves
/// the previous complete version). Throws std::runtime_error when it cannot write.
void write_run_folder(const std::string& directory, const RunReport& report);

/// `path` itself when it names a file, else `path`/results.json (a run folder).
std::string results_file_of(const std::string& path);

/// Reads a results.json (or a run folder's) back into the report that wrote it: every field the
/// writer writes, so that results_json(read_run_results(p)) reproduces the kernels' entries. The
/// processes count of the cases is not recorded and reads as 0. Throws std::invalid_argument
/// naming the file and what is wrong: missing or unreadable, malformed JSON (line and column),
/// another schema, a missing or mistyped field (its path, e.g. "kernels[2].benchmark.time"),
/// or a kernel whose recorded verdict disagrees with its cases.
RunReport read_run_results(const std::string& path);

}  // namespace rkt
