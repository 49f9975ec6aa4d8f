// Verdicts a program can read: each case's status, message, and the dims, scale, seed, config and
// reproduce string of the case that decided it, as JSON (`rkt test --json`, results.json).
//
// The details travel from the judging process to the supervisor at the end of the case's message,
// after a marker line (with_case_details); the supervisor takes them off again
// (take_case_details), so that messages read as before and the details are structured.
#pragma once

#include <string>

#include "framework/cases/case_outcome.h"
#include "framework/supervision/replay_command.h"
#include "framework/supervision/supervisor.h"

namespace rkt {

/// The line that starts a message's details: "[case] dims B=3 N=5; scale 1; seed 42; ...".
inline constexpr const char* kCaseDetailsMarker = "\n[case] ";

/// `message` followed by the details line (unchanged when the details are not known); its
/// `reproduce` field is the whole command that replays case `case_name` (replay_command_line,
/// with this process's kernel library when the details name none).
std::string with_case_details(const std::string& message, const CaseDetails& details,
                              const std::string& case_name);

/// Removes a details line from the end of `message` and returns what it said (known == false when
/// there was none or it could not be read).
CaseDetails take_case_details(std::string& message);

/// One case as a JSON object: name, suite, case, status, milliseconds, message, and, when known,
/// dims, scale, seed (null when withheld), config and reproduce.
std::string case_record_json(const CaseRecord& record);

/// A whole supervised run: {"seed": ..., "filter": ..., "cases": [...], "summary": {...},
/// "problems": [...]} (docs/results_schema.md).
std::string supervised_run_json(const SupervisedRun& run, const std::string& seed,
                                const std::string& filter);

}  // namespace rkt
