// What `rkt eval` says about one kernel of one source file (or about a file that produced no
// kernel): the line `--json` prints, the entry the run folder's eval.json keeps for resuming.
#pragma once

#include <string>

#include "framework/eval/library_compiler.h"
#include "framework/runs/run_report.h"

namespace rkt {

struct EvalRecord {
  std::string file;         ///< the source, as given
  std::string library_hash;  ///< CompiledSource::key ("" when the file was unusable)
  std::string library;      ///< the cached kernel library the kernel ran from
  /// "judged" (the kernel's cases ran: see `kernel.verdict()`), or why no kernel was judged:
  /// a CompiledSource status, or "unknown_task", "duplicate_kernel", "not_of_task" (--task),
  /// "load_error", "registration_error", "judge_error", "judge_timeout" (its --file-timeout).
  std::string status;
  std::string message;      ///< why, for a status other than "judged"
  /// Judged under --allow-declarations (a later call without it judges the file again).
  bool declarations_allowed = false;
  bool has_kernel = false;  ///< `kernel` holds a judged kernel
  /// Its child judge was started ahead of the file and handed it (warm_judge.h).
  bool judge_started_ahead = false;
  KernelReport kernel;      ///< with its own kernel id (not the run folder's file-prefixed one)
  /// --recheck (recheck.h): judged a second time, by fresh processes with a fresh secret seed.
  bool rechecked = false;
  KernelReport recheck;     ///< the second judgement, when it gave one
  std::string recheck_disagreement;  ///< why the two judgements disagree ("" when they agree)

  /// "pass", "FAIL" or "skipped"; "FAIL" for every status but "judged", and for a recheck that
  /// disagreed.
  std::string verdict() const;
};

/// One JSON object on one line: file, library_hash, status, declarations_allowed, task, kernel,
/// verdict, device, precision, declarations (those in force: precision, accumulates_in,
/// waived_gates, allowed_operators, supports, alignment_bytes; "restricted" when a gate is
/// waived, an operator allowed or the domain narrowed), the cases (name and status each), the first failure (case, status, message,
/// reproduce: a command that replays it on the same inputs with this library), the benchmark
/// (median and quartiles in ms, speedups against each baseline with their intervals, speedup
/// against the strongest, peak memory, whether it was impossibly fast or its spot checks failed),
/// seconds, judge_started_ahead, child_processes (the kernel's: started, started_ahead), recheck
/// (null, or the second verdict and timing and whether they agree); message for a file without
/// kernels.
std::string eval_record_json(const EvalRecord& record);

/// Reads a line eval_record_json wrote back: the fields resuming needs (file, library_hash,
/// status, message, declarations_allowed). Throws std::invalid_argument when it is not such a line.
EvalRecord eval_record_from_json(const std::string& line);

}  // namespace rkt
