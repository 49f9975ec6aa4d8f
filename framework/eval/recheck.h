// `rkt eval --recheck K`: a leaderboard's second look at its winners. The K fastest kernels that
// passed and were timed are judged again, each by a fresh child judge (fresh processes: nothing of
// the first judgement's workers survives) with a fresh secret seed (RKT_SECRET_SEED, drawn here
// and never printed: every case draws other inputs than the first time). Each record keeps both
// verdicts and both timings. A disagreement fails the kernel: a verdict that is not "pass" the
// second time, a timing that could not be taken again, or a kernel slower beyond the noise both
// runs measured, by rkt compare's rule (run_comparison.h: its median and its ratio to the
// strongest baseline both moved), so that machine drift alone never fails it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "framework/eval/eval_options.h"
#include "framework/eval/eval_record.h"
#include "framework/eval/library_compiler.h"

namespace rkt {

/// One file's records, with the library they came from.
struct JudgedFile {
  const CompiledSource* source = nullptr;
  std::vector<EvalRecord>* records = nullptr;
};

/// Rechecks the `options.recheck` fastest passing, timed kernels among `files`, in place: each
/// chosen record gets `rechecked`, `recheck` and (when the two disagree) `recheck_disagreement`.
/// The second judgements go to DIRECTORY/libraries/<hash>/recheck/. Returns how many were
/// rechecked; progress lines go to `progress`.
int recheck_fastest(const EvalOptions& options, const std::vector<JudgedFile>& files,
                    const std::string& directory, std::ostream& progress);

/// Why `second` disagrees with `first` (a kernel that passed and was timed), or "" when it agrees.
std::string recheck_disagreement(const KernelReport& first, const KernelReport& second);

}  // namespace rkt
