#include "framework/eval/library_judge.h"

#include <algorithm>
#include <sstream>

#include "framework/base/file_access.h"
#include "framework/eval/child_command.h"
#include "framework/eval/eval_defaults.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/registry/declaration_policy.h"
#include "framework/runs/run_folder.h"

namespace rkt {
namespace {

// The judge's own error lines ("rkt: error: ...", "rkt: ..."), without the usage hint.
std::string judge_errors(const std::string& log) {
  std::istringstream lines(log);
  std::string errors;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("rkt: ", 0) != 0 || line.find("Run 'rkt --help'") != std::string::npos) continue;
    if (line.rfind("rkt: error: ", 0) == 0) line = line.substr(12);
    else line = line.substr(5);
    errors += (errors.empty() ? "" : "\n") + line;
  }
  return errors;
}

// The last lines of a log, for a judge that ended without saying why.
std::string log_tail(const std::string& log, std::size_t count) {
  std::vector<std::string> lines;
  std::istringstream stream(log);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  std::string tail;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) {
    tail += (tail.empty() ? "" : "\n") + lines[i];
  }
  return tail;
}

// A child judge that refused the library (exit 2): the registry's validation, the --kernel
// selection or the worker's load, told apart by what it said.
std::string refusal_status(const std::string& errors) {
  if (errors.find("declaration refused: ") != std::string::npos) return "declaration_refused";
  if (errors.find("registered twice") != std::string::npos) return "duplicate_kernel";
  if (errors.find("unknown task") != std::string::npos) return "unknown_task";
  if (errors.find("--kernel") != std::string::npos) return "not_of_task";
  if (errors.find("could not") != std::string::npos || errors.find("load") != std::string::npos) {
    return "load_error";
  }
  return "registration_error";
}

// A record per kernel of `report` (of `task` when one is given), each `file_record` with its kernel.
std::vector<EvalRecord> judged_records(const RunReport& report, const std::string& task,
                                       const EvalRecord& file_record) {
  std::vector<EvalRecord> records;
  for (const KernelReport& kernel : report.kernels) {
    // --task selects by "TASK/" in the id, which leaky_relu/ contains for relu: only TASK's own.
    if (!task.empty() && kernel.task != task) continue;
    EvalRecord record = file_record;
    record.status = "judged";
    record.has_kernel = true;
    record.kernel = kernel;
    records.push_back(record);
  }
  return records;
}

}  // namespace

std::string counted(std::size_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many.empty() ? one + "s" : many);
}

EvalRecord record_of_unjudged(const CompiledSource& source) {
  EvalRecord record;
  record.file = source.source;
  record.library_hash = source.key;
  record.status = source.status;
  record.message = source.message;
  return record;
}

std::vector<EvalRecord> judge_library(const EvalOptions& options, const CompiledSource& source,
                                      const JudgeTarget& target) {
  std::vector<EvalRecord> records;
  EvalRecord failed;
  failed.file = source.source;
  failed.library_hash = source.key;
  failed.library = source.library;
  failed.declarations_allowed = options.allow_declarations;
  const std::string& folder = target.folder;
  make_directories(folder);
  ChildCommand command;
  command.argv = {options.judge, "run", "--out", folder, "--replace"};
  if (!options.allow_declarations) command.argv.push_back("--refuse-declarations");
  if (options.case_timeout_seconds > 0) {
    command.argv.insert(command.argv.end(), {"--timeout", std::to_string(options.case_timeout_seconds)});
  }
  if (options.benchmark_timeout_seconds > 0) {
    command.argv.insert(command.argv.end(),
                        {"--benchmark-timeout", std::to_string(options.benchmark_timeout_seconds)});
  }
  if (!target.kernel.empty()) {
    command.argv.insert(command.argv.end(), {"--kernel", target.kernel});
  } else if (!options.task.empty()) {
    command.argv.insert(command.argv.end(), {"--kernel", options.task + "/"});
  }
  command.environment[kKernelLibraryVariable] = source.library;
  // Its compiler ran in the source's folder: a refused declaration's line is read from there.
  const std::size_t slash = source.source.rfind('/');
  command.environment[kKernelSourceFolderVariable] =
      slash == std::string::npos ? "." : slash == 0 ? "/" : source.source.substr(0, slash);
  command.environment["RKT_SEED"] = std::to_string(base_seed());
  if (!target.gpu.empty()) command.environment["CUDA_VISIBLE_DEVICES"] = target.gpu;
  for (const auto& [name, value] : target.environment) command.environment[name] = value;
  command.output_file = folder + "/judge.log";
  command.timeout_seconds = options.file_timeout_seconds > 0 ? options.file_timeout_seconds
                                                             : eval_defaults::kFileTimeoutSeconds;
  std::unique_ptr<ProcessStartedAhead> started_ahead;
  if (target.warm != nullptr) {
    started_ahead = target.warm->take(target.gpu);
    // The next file's judge loads while this one judges.
    if (target.start_next_ahead) target.warm->start_ahead(target.gpu);
  }
  const ChildOutcome judged = run_child_command(command, started_ahead.get());
  failed.judge_started_ahead = judged.started_ahead;
  const std::string log = file_exists(command.output_file) ? read_whole_file(command.output_file) : "";
  const std::string results = folder + "/results.json";
  if (judged.timed_out) {
    // The kernels the judge finished keep their records, and so do the finished cases of the one
    // it was judging (results.json is rewritten after each case: that kernel fails, its record
    // saying it was stopped); the file gets one more, failed, for the time limit.
    std::vector<std::string> finished;
    if (file_exists(results)) {
      try {
        records = judged_records(read_run_results(results), options.task, failed);
        for (const EvalRecord& record : records) {
          const std::vector<std::string>& problems = record.kernel.cases.problems;
          if (std::find(problems.begin(), problems.end(), kCasesStillRunningProblem) == problems.end()) {
            finished.push_back(record.kernel.full_id());
          }
        }
      } catch (const std::invalid_argument&) {
        // Cut short as it was written: nothing of it is kept.
      }
    }
    failed.status = "judge_timeout";
    std::string done_text = finished.empty() ? "no kernel" : counted(finished.size(), "kernel") + " (";
    for (std::size_t i = 0; i < finished.size(); ++i) done_text += (i ? ", " : "") + finished[i];
    if (!finished.empty()) done_text += ")";
    failed.message = "the judge of " + source.source + " was " + describe_outcome(judged) +
                     " (--file-timeout " + std::to_string(command.timeout_seconds) + " s) with " +
                     done_text + " judged to the end; the last lines of " + command.output_file +
                     ":\n" + log_tail(log, 8);
    records.push_back(failed);
    return records;
  }
  if (judged.started && !judged.timed_out && (judged.exit_code == 0 || judged.exit_code == 1) &&
      file_exists(results)) {
    RunReport report;
    try {
      report = read_run_results(results);
    } catch (const std::invalid_argument& error) {
      failed.status = "judge_error";
      failed.message = error.what();
      records.push_back(failed);
      return records;
    }
    const bool none = std::none_of(report.kernels.begin(), report.kernels.end(), [&](const KernelReport& k) {
      return options.task.empty() || k.task == options.task;
    });
    if (none) {
      failed.status = "no_registration";
      failed.message = source.source + ": its library registers no kernel" +
                       (options.task.empty() ? std::string() : " of task '" + options.task + "'");
      records.push_back(failed);
      return records;
    }
    records = judged_records(report, options.task, failed);
    return records;
  }
  const std::string errors = judge_errors(log);
  if (judged.exit_code == 2 && !errors.empty()) {
    failed.status = refusal_status(errors);
    failed.message = errors;
  } else {
    failed.status = "judge_error";
    failed.message = "the judge of " + source.source + " ended with " + describe_outcome(judged) +
                     "; the last lines of " + command.output_file + ":\n" + log_tail(log, 8);
  }
  records.push_back(failed);
  return records;
}


}  // namespace rkt
