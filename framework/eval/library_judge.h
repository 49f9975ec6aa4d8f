// One compiled kernel library judged by a child judge: `rkt run` on that library
// (RKT_KERNEL_LIBRARY) into a run folder of its own, in a process group of its own and under the
// file's time limit, its results read back as one EvalRecord per kernel, or one failed record
// saying why no kernel was judged. The batch (eval_job.h), its recheck (recheck.h) and the server
// (framework/serve/) all judge through it, so that each gives the same records.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "framework/eval/eval_options.h"
#include "framework/eval/eval_record.h"
#include "framework/eval/library_compiler.h"
#include "framework/eval/warm_judge.h"

namespace rkt {

/// Where and how one library is judged.
struct JudgeTarget {
  std::string folder;  ///< the child judge's run folder (results.json, judge.log)
  std::string gpu;     ///< the CUDA_VISIBLE_DEVICES that shows the child its one GPU ("" keeps ours)
  std::string kernel;  ///< a --kernel selection ("" selects the kernels of options.task, or all)
  /// Set on top of the child's environment (a recheck's fresh secret seed).
  std::map<std::string, std::string> environment;
  /// The slot's judge started ahead (warm_judge.h): handed this file when one waits for `gpu`;
  /// nullptr starts the child judge now.
  WarmJudge* warm = nullptr;
  /// With `warm`: start the slot's next judge ahead as this one is handed its file (another file
  /// will follow on this slot).
  bool start_next_ahead = false;
};

/// Judges `source` (compiled) as `target` says; never throws for what the kernel does.
std::vector<EvalRecord> judge_library(const EvalOptions& options, const CompiledSource& source,
                                      const JudgeTarget& target);

/// The record of a file that gave no library (a compile error, a missing file, ...): its status.
EvalRecord record_of_unjudged(const CompiledSource& source);

/// "1 file", "3 files"; "1 library", "2 libraries" (`many` when the plural is not one + "s").
std::string counted(std::size_t count, const std::string& one, const std::string& many = "");

}  // namespace rkt
