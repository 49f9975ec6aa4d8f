// What a run's reports say about its kernels besides their numbers: why each failed kernel failed
// (every failing case with its message, dims and the command that replays it), problems, waivers,
// declared domains, task verdicts, absent baselines and what each baseline times.
//
// One list for both writers: report.md and report.html render the same notes, so that the page
// cannot drop what the Markdown says (ReportWriters tests in tests/unit/report_test.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "framework/runs/run_report.h"

namespace rkt {

/// One line under a note: "dims: B=3 N=5, scale 1, seed 42, config default", or the replay
/// command.
struct ReportNoteLine {
  std::string label;  ///< "dims", "replay"
  std::string value;
  bool command = false;  ///< A shell command to paste: shown as code.
};

/// One note: "<subject><text>", the subject emphasised when the note is a reason for a FAIL.
struct ReportNote {
  ReportNote() = default;
  ReportNote(std::string subject_, std::string text_, bool failure_ = false,
             std::vector<ReportNoteLine> lines_ = {})
      : subject(std::move(subject_)), text(std::move(text_)), failure(failure_), lines(std::move(lines_)) {}

  std::string subject;  ///< A kernel ("softmax/wrong") or a case ("softmax/wrong.property_dims").
  std::string text;     ///< What follows the subject, as written (a case's message may span lines).
  bool failure = false;
  std::vector<ReportNoteLine> lines;
};

/// Whether a timed kernel's speedup was measured on calls shorter than
/// defaults::kShortBenchmarkCallMilliseconds (its median or its strongest baseline's): mostly
/// fixed per-call cost, which the reports warn of beside the benchmark's size.
bool short_benchmark_calls(const BenchmarkRecord& benchmark);

/// The notes of a run, in the order the reports print them: per kernel, then the baselines.
std::vector<ReportNote> report_notes(const RunReport& report);

}  // namespace rkt
