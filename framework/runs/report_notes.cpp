#include "framework/runs/report_notes.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "framework/base/number_text.h"
#include "framework/supervision/case_records_json.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

std::string fixed(double value, int digits) { return fixed_digits(value, digits); }

// "N % 4 == 0, N <= 8192".
std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// "B=3 N=5; scale 1; seed 42; config default": the inputs of the case that decided a verdict
// (a failed property's shrunk trial).
std::string case_inputs(const CaseDetails& details) {
  std::ostringstream text;
  for (const auto& [name, size] : details.dims) {
    text << (text.tellp() > 0 ? " " : "") << name << "=" << size;
  }
  text << "; scale " << details.scale << "; seed "
       << (details.seed_known ? std::to_string(details.seed) : "withheld") << "; config "
       << details.config;
  return text.str();
}

// "0.05": the threshold as written in defaults.h.
std::string plain_number(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// A case's message without GoogleTest's bare "Failed" first line (an ADD_FAILURE's), which
// would read "(failed): Failed" after the status.
std::string message_without_gtest_prefix(const std::string& message) {
  if (message.rfind("Failed", 0) != 0 || (message.size() > 6 && message[6] != '\n')) return message;
  return message.size() > 7 ? message.substr(7) : "";
}

// The case's name under the kernel's own id: a run folder of rkt eval names a kernel
// "<file stem>:<kernel>" where two files register the same id, while the judge that ran the case
// named it by the registered id; one kernel gets one name on the page.
std::string case_subject(const KernelReport& kernel, const CaseRecord& record) {
  const std::size_t slash = record.name.find('/');
  const std::size_t dot = record.name.find('.', slash == std::string::npos ? 0 : slash);
  if (dot == std::string::npos) return record.name;
  return kernel.full_id() + record.name.substr(dot);
}

ReportNote failed_case_note(const KernelReport& kernel, const CaseRecord& record) {
  const std::string message = message_without_gtest_prefix(record.message);
  ReportNote note{case_subject(kernel, record),
                  " (" + record.status + ")" + (message.empty() ? "" : ": " + message), true, {}};
  if (record.details.known) note.lines.push_back({"dims", case_inputs(record.details), false});
  const std::string replay = case_reproduce(record);
  if (!replay.empty()) note.lines.push_back({"replay", replay, true});
  return note;
}

void add_kernel_notes(const KernelReport& kernel, std::vector<ReportNote>& notes) {
  const std::string id = kernel.full_id();
  for (const auto& [gate, reason] : kernel.waived_gates) {
    notes.push_back({id, ": gate " + gate + " waived: " + reason});
  }
  if (!kernel.allowed_operators.empty()) {
    std::string names;
    for (const std::string& name : kernel.allowed_operators) names += " " + name;
    notes.push_back({id, " declares ATen operators:" + names});
  }
  if (kernel.accumulation != "fp32") {
    notes.push_back({id, " declares " + kernel.accumulation +
                             " accumulation (accumulates_in): judged by a bound that grows with the square "
                             "root of the task's reduction length, not by the fp32 accumulator's"});
  }
  if (kernel.alignment_bytes > 0) {
    notes.push_back({id, " requires " + std::to_string(kernel.alignment_bytes) +
                             "-byte aligned buffers (declared by the kernel; its misaligned_pointers case "
                             "offset every buffer by exactly that from any larger alignment)"});
  }
  if (!kernel.supported_dims.empty()) {
    notes.push_back({id, " supports only " + joined(kernel.supported_dims) +
                             " (declared by the kernel; its cases and properties ran inside it)"});
  }
  for (const std::string& reason : kernel.task_reasons) {
    notes.push_back(
        {id, (kernel.task_excluded() ? ": task excluded, left out of the summary: "
                                     : ": task precision-blind, the " + kernel.precision +
                                           " claim is unverifiable on it: ") +
                 reason});
  }
  for (const CaseRecord& record : kernel.cases.cases) {
    if (record.status == "failed" || record.status == "crashed") {
      notes.push_back(failed_case_note(kernel, record));
    }
  }
  for (const std::string& problem : kernel.cases.problems) {
    notes.push_back({id, ": " + problem, true});
  }
  const BenchmarkRecord& bench = kernel.benchmark;
  if (!bench.measured && !bench.problem.empty()) {
    notes.push_back({id, " not benchmarked: " + bench.problem});
  }
  if (short_benchmark_calls(bench)) {
    double shortest = bench.time.median;
    for (const BaselineResult& baseline : bench.baselines) {
      if (baseline.available && baseline.name == bench.strongest_baseline) {
        shortest = std::min(shortest, baseline.time.median);
      }
    }
    notes.push_back({id, " benchmark at " + (bench.dims.empty() ? "an unrecorded size" : bench.dims) +
                             ": calls of " + fixed(shortest, 4) + " ms (the shorter of its median and " +
                             bench.strongest_baseline + "'s), under " +
                             plain_number(defaults::kShortBenchmarkCallMilliseconds) +
                             " ms, are largely fixed per-call cost (dispatch, a launch, "
                             "cold caches): its speedup says little about the kernel's own speed"});
  }
  if (bench.impossible) {
    notes.push_back({id,
                     " impossible: median " + fixed(bench.time.median, 5) +
                         " ms is under the physical floor " + fixed(bench.floor_ms, 5) +
                         " ms; not scored",
                     true});
  }
  if (bench.spot_check_failures > 0) {
    notes.push_back({id, " timed calls failed their checks: " + bench.spot_check_message, true});
  }
}

}  // namespace

bool short_benchmark_calls(const BenchmarkRecord& benchmark) {
  if (!benchmark.measured) return false;
  double shortest = benchmark.time.median;
  for (const BaselineResult& baseline : benchmark.baselines) {
    if (baseline.available && baseline.name == benchmark.strongest_baseline) {
      shortest = std::min(shortest, baseline.time.median);
    }
  }
  return shortest < defaults::kShortBenchmarkCallMilliseconds;
}

std::vector<ReportNote> report_notes(const RunReport& report) {
  std::vector<ReportNote> notes;
  for (const KernelReport& kernel : report.kernels) add_kernel_notes(kernel, notes);
  std::set<std::string> absent;
  for (const KernelReport& kernel : report.kernels) {
    for (const BaselineResult& baseline : kernel.benchmark.baselines) {
      if (!baseline.available) {
        absent.insert(baseline.name + " (" + kernel.device + "): " + baseline.absent_reason);
      }
    }
  }
  for (const std::string& line : absent) notes.push_back({"", "baseline " + line});
  // What each baseline times, once per distinct description (backward tasks differ).
  std::map<std::string, std::set<std::string>> measured_by;
  for (const KernelReport& kernel : report.kernels) {
    for (const BaselineResult& baseline : kernel.benchmark.baselines) {
      if (baseline.available && !baseline.measures.empty()) {
        measured_by[baseline.name + " times " + baseline.measures].insert(kernel.task);
      }
    }
  }
  for (const auto& [line, tasks] : measured_by) {
    notes.push_back({"", "baseline " + line + " (" + std::to_string(tasks.size()) + " task" +
                             (tasks.size() == 1 ? "" : "s") + ")"});
  }
  return notes;
}

}  // namespace rkt
