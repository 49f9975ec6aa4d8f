// The command that replays one case, as every output prints it: the terminal's `[case]` line,
// `rkt test --json`, results.json, report.md, report.html, JUnit and `rkt eval`'s records. One
// function builds it (replay_command_line), so that each of them pastes into a shell and runs the
// same case again, on the same inputs, with the same judge and kernel library:
//
//   [RKT_KERNEL_LIBRARY=LIB] ENVIRONMENT PROGRAM test --filter 'task/kernel.case'
//
// ENVIRONMENT is what the case drew its inputs from (RKT_SEED=..., RC_PARAMS=...); PROGRAM the
// judge that ran it, by its own path (a user's suite replays with itself); LIB the kernel library
// it judged when that was not the judge's own (RKT_KERNEL_LIBRARY: `rkt eval`'s child judges). The
// filter names the whole case, so it selects that one case and nothing else.
#pragma once

#include <string>

#include "framework/cases/case_outcome.h"
#include "framework/supervision/supervisor.h"

namespace rkt {

/// The program a replay command runs: "rkt" until the judge names itself at start (its own path).
void set_replay_program(const std::string& program);

/// The kernel library this process was told to judge through RKT_KERNEL_LIBRARY, as an absolute
/// path; "" when it judges its own (then a replay needs no library).
std::string replay_kernel_library();

/// The one builder: "[RKT_KERNEL_LIBRARY=LIB ][ENVIRONMENT ]PROGRAM test --filter 'CASE'", each
/// part quoted for a shell where it needs it; LIB and ENVIRONMENT left out when empty.
std::string replay_command_line(const std::string& kernel_library, const std::string& environment,
                                const std::string& case_name);

/// replay_command_line for case `case_name` with no environment and this process's library.
std::string replay_command(const std::string& case_name);

/// The command that replays a record's case on the same inputs (its details' library and
/// environment); "" when the details withhold it (a hidden case).
std::string case_reproduce(const CaseRecord& record);

/// What a printed replay command holds besides the program and the filter.
struct ReplayParts {
  std::string kernel_library;  ///< "" when it names none.
  std::string environment;     ///< RKT_SEED=..., RC_PARAMS=...; the whole text when no command.
};

/// Reads a command replay_command_line wrote (any program) back into its parts.
ReplayParts parse_replay_command(const std::string& command);

/// parse_replay_command(reproduce).environment (kept for callers that hold a case name).
std::string replay_environment(const std::string& reproduce, const std::string& case_name);

}  // namespace rkt
