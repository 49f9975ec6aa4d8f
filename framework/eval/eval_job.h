// `rkt eval FILE...`: each source compiled into its own cached kernel library
// (library_compiler.h), then judged by a child judge, `rkt run` on that library
// (RKT_KERNEL_LIBRARY), so that every kernel gets exactly the main job's cases, benchmark and
// verdict, and one file's crash, hang or cheat ends in that file's child judge. The records are
// gathered into one run folder: results.json, report.md, report.html, and eval.jsonl (one
// record per kernel, eval_record.h), which a second call into the same folder resumes from.
#pragma once

#include <string>
#include <vector>

namespace rkt {

struct EvalOptions {
  std::vector<std::string> sources;
  std::string task;              ///< --task: only kernels of this task are judged ("" = all)
  std::string output_directory;  ///< --out (default runs/eval-<UTC time>)
  bool json = false;             ///< --json: one record per kernel on stdout, progress on stderr
  int jobs = 0;                  ///< --jobs: compilers at a time (0: the core count)
  int case_timeout_seconds = 0;       ///< --timeout, passed to each child judge (0: its default)
  int benchmark_timeout_seconds = 0;  ///< --benchmark-timeout, likewise
  int file_timeout_seconds = 0;  ///< --file-timeout: one file's judge in all (0: kFileTimeoutSeconds)
  /// --allow-declarations: judge files that waive a gate, allow an operator or narrow their
  /// task's domain (refused by default: status declaration_refused; declaration_policy.h).
  bool allow_declarations = false;
  std::string judge;             ///< this executable (the child judges run it)
  std::string worker;            ///< its rkt-worker (an installed judge's prefix comes from it)
};

/// Runs the evaluation. Exit code: 0 when every kernel passed (or was skipped: no device), 1 when
/// a kernel failed or a source gave no kernel (compile error, no registration, unknown task,
/// ...), 2 when a file could not be used (missing, unreadable, empty, too large, not a source)
/// or the run folder cannot be written; every file is evaluated either way.
int run_eval_job(const EvalOptions& options);

}  // namespace rkt
