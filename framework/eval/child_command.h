// One external command run to completion: a compiler, or a child judge. Its output (stdout and
// stderr together) goes to a file; a command past its time limit is killed with its process group.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rkt {

struct ChildCommand {
  std::vector<std::string> argv;              ///< argv[0] is a path (or a name found on PATH)
  std::string working_directory;              ///< "" keeps ours
  std::map<std::string, std::string> environment;  ///< set on top of ours
  std::string output_file;                    ///< stdout and stderr, truncated first
  int timeout_seconds = 0;                    // [s] 0: no limit
};

struct ChildOutcome {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;  ///< when it exited
  int signal = 0;      ///< when a signal ended it
  double seconds = 0;  // [s]
  std::string problem;  ///< why it did not start, else ""
  bool started_ahead = false;  ///< a process started ahead was handed the command
};

class ProcessStartedAhead;

/// Runs `command` and waits for it (safe to call from several threads at once). While it runs, a
/// SIGINT, SIGTERM or SIGHUP of this process kills its process group before this process dies
/// (unless the process was started ignoring that signal). With `started_ahead` (a process started
/// ahead for argv[0]'s command with this environment: framework/supervision/started_ahead.h) the
/// command is handed to it rather than started; one that has gone is replaced by a new start.
ChildOutcome run_child_command(const ChildCommand& command, ProcessStartedAhead* started_ahead = nullptr);

/// "exit 1", "signal 11 (Segmentation fault)", "killed after 300 s": how it ended, in words.
std::string describe_outcome(const ChildOutcome& outcome);

}  // namespace rkt
