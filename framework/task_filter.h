// The task filter: rejects tasks whose outputs do not depend on their inputs enough for a
// correctness check to mean anything (robust-kbench's statistics), or that a trivial kernel passes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// Seeds the statistics are taken over (robust-kbench uses 5).
inline constexpr int kFilterSeeds = 5;  // [seeds]
/// The first of the fixed seeds the filter draws inputs from.
inline constexpr std::uint64_t kFilterFirstSeed = 20261130;
/// The threshold of every statistic (robust-kbench's 0.01), in units of the task's declared
/// output scale (TaskSpec::output_scale, 1 unless declared).
inline constexpr double kFilterThreshold = 0.01;  // [x output scale]

struct TaskVerdict {
  std::string task;
  bool flagged = false;
  std::vector<std::string> reasons;  ///< One sentence per rule that fired (when flagged).
  /// Rules that fired on some configs but not all (a kernel must pass every config, so no
  /// shortcut works on the task): shown, but the task is not flagged.
  std::vector<std::string> notes;
  double seconds = 0;                // [s] wall time of the judgement
};

/// Judges `task` at its small dims on the CPU. The rules:
///   output_range   every output element lies in (-0.01, 0.01) for every seed;
///   output_std     the per-element std across seeds is under 0.01 everywhere;
///   output_axis    along some axis the output's std is under 0.01 everywhere, for every seed;
///   input_impact   with the weights fixed, varying the data moves no element of any output by
///                  0.01;
///   weight_impact  with the data fixed, varying the weights moves none (tasks with weights; one
///                  output alone may ignore the weights, as a linear layer's weight gradient does);
///   trivial kernel one of: all zeros, a constant (the mean of another seed's output), an input
///                  returned unchanged (where shapes match), the reference computed in bf16, noise
///                  with another seed's output mean and std, passes fp32 correctness on any of
///                  the four distributions.
/// Tasks with several configs are judged per config and flagged when every config is.
/// Never throws: a reference that fails to run flags the task with the error.
TaskVerdict judge_task(const TaskSpec& task);

/// {"tasks":[{"id","flagged","reasons":[...],"notes":[...],"seconds"}], "seconds"}
std::string task_verdicts_json(const std::vector<TaskVerdict>& verdicts, double seconds);

}  // namespace rkt
