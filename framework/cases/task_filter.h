// The task filter: finds tasks whose correctness check means little, and says how much that
// matters. A task is excluded from aggregate scores only when a kernel that does no real work
// would pass it; a task that only a lower-precision computation passes is precision-blind (scored,
// marked); everything else it finds is a note.
#pragma once

#include <cstdint>
#include <map>
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

/// What the filter's findings mean for a task's scores.
enum class TaskSeverity {
  /// Scored. Findings, if any, are notes: they hold on some distributions or configs only, and a
  /// kernel must pass them all, so no shortcut works on the task.
  healthy,
  /// Scored and marked in every report: the reference computed in bf16 passes fp32 correctness on
  /// every distribution of every config, so a kernel's fp32 (or tf32) claim on this task cannot be
  /// verified; nothing that skips the work passes it.
  precision_blind,
  /// Left out of aggregate scores (still tested and reported): on every config, a kernel that
  /// does no real work (zeros, a constant, noise, an input passed through) passes every
  /// distribution, or robust-kbench's statistics find the outputs degenerate.
  excluded,
};

/// "healthy", "precision_blind", "excluded".
const char* to_string(TaskSeverity severity);

struct TaskVerdict {
  std::string task;
  TaskSeverity severity = TaskSeverity::healthy;
  /// Why the task is excluded or precision-blind, one sentence per finding (prefixed with the
  /// config when the task has several); empty when healthy.
  std::vector<std::string> reasons;
  /// Findings that do not change the severity: shortcuts that pass some distributions or some
  /// configs only, outputs that ignore the weights, and (for excluded tasks) the bf16 finding.
  std::vector<std::string> notes;
  double seconds = 0;  // [s] wall time of the judgement

  bool excluded() const { return severity == TaskSeverity::excluded; }
  bool precision_blind() const { return severity == TaskSeverity::precision_blind; }
};

/// Judges `task` at its small dims on the CPU, each config alone. On one config:
///   robust-kbench's statistics over kFilterSeeds seeds at x1 (exclusion grounds):
///     output_range   every output element lies within the threshold of zero for every seed;
///     output_std     the per-element std across seeds is under the threshold everywhere;
///     output_axis    along some axis the output's std is under the threshold, for every seed;
///     input_impact   with the weights fixed, varying the data moves no output element by the
///                    threshold;
///   weight_impact    with the data fixed, varying the weights moves none (a note only: a kernel
///                    must still compute the outputs from the data);
///   trivial kernels  all zeros, a constant (the mean of another seed's output), noise with
///                    another seed's output mean and std, an input returned unchanged (where
///                    shapes match): an exclusion ground when one passes fp32 correctness on
///                    every distribution where the reference is finite, a note when it passes some;
///   lower precision  the reference computed on bf16-rounded inputs: precision-blind when it
///                    passes every distribution, a note when it passes some. On a task stored in
///                    bf16 or fp16: on inputs rounded to fp8 e4m3's 3 mantissa bits, and every
///                    stand-in judged by the bound an fp32 kernel of the task meets (its outputs
///                    stored in the task's format), not by fp32's.
/// The task is excluded when every config has an exclusion ground, precision-blind when it is
/// not excluded and bf16 passes every distribution of every config. Never throws: a reference
/// that fails to run excludes the task, with the error.
TaskVerdict judge_task(const TaskSpec& task);

/// Where a task comes from, by id: "kb_l1", "kb_l2", "rkb" (prefixes), "16bit" (the bf16 and fp16
/// tasks: a "_bf16" or "_fp16" suffix, before "_backward" for a backward task) or "core".
std::string task_source(const std::string& task_id);

/// Per-source counts of a set of verdicts.
struct SourceCounts {
  int tasks = 0;
  int excluded = 0;
  int precision_blind = 0;
  int with_notes = 0;  ///< Healthy or precision-blind tasks with at least one note.
};
std::map<std::string, SourceCounts> count_by_source(const std::vector<TaskVerdict>& verdicts);

/// {"tasks":[{"id","source","severity","reasons":[...],"notes":[...],"seconds"}],
///  "sources":{"core":{"tasks","excluded","precision_blind","with_notes"},...}, "seconds"}
std::string task_verdicts_json(const std::vector<TaskVerdict>& verdicts, double seconds);

/// `rkt filter`'s text: one block per task (severity, reasons, notes), then the counts per
/// source and the wall time.
std::string task_verdicts_text(const std::vector<TaskVerdict>& verdicts, double seconds);

}  // namespace rkt
