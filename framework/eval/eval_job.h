// `rkt eval FILE...`: each source compiled into its own cached kernel library
// (library_compiler.h), then judged by a child judge, `rkt run` on that library
// (RKT_KERNEL_LIBRARY), so that every kernel gets exactly the main job's cases, benchmark and
// verdict, and one file's crash, hang or cheat ends in that file's child judge. The records are
// gathered into one run folder: results.json, report.md, report.html, and eval.jsonl (one
// record per kernel, eval_record.h), which a second call into the same folder resumes from.
#pragma once

#include "framework/eval/eval_options.h"

namespace rkt {

/// Runs the evaluation. Exit code: 0 when every kernel passed (or was skipped: no device), 1 when
/// a kernel failed or a source gave no kernel (compile error, no registration, unknown task,
/// ...), 2 when a file could not be used (missing, unreadable, empty, too large, not a source)
/// or the run folder cannot be written; every file is evaluated either way.
int run_eval_job(const EvalOptions& options);

}  // namespace rkt
