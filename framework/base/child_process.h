// One external command run to completion in a process group of its own: a compiler, a child
// judge, a sanitizer's probe. Its output (stdout and stderr together) goes to a file; a command
// past its time limit is killed with its whole group.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace rkt {

struct ChildCommand {
  std::vector<std::string> argv;                   ///< argv[0] is a path (or a name found on PATH)
  std::string working_directory;                   ///< "" keeps ours
  std::map<std::string, std::string> environment;  ///< set on top of ours
  std::string output_file;                         ///< stdout and stderr, truncated first
  int timeout_seconds = 0;                         // [s] 0: no limit
};

struct ChildOutcome {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;          ///< when it exited
  int signal = 0;              ///< when a signal ended it
  double seconds = 0;          // [s]
  std::string problem;         ///< why it did not start, else ""
  bool started_ahead = false;  ///< a process started ahead was handed the command
};

/// This process's environment as "NAME=VALUE" entries, with `overrides` set on top.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides);

/// Starts `command` (its group is its own, its standard input /dev/null) and waits for it; safe
/// to call from several threads at once. While it runs, a SIGINT, SIGTERM or SIGHUP of this
/// process kills its process group before this process dies (unless the process was started
/// ignoring that signal).
ChildOutcome run_child_command(const ChildCommand& command);

/// Waits for `pid`, the leader of its own process group started elsewhere for `command` at
/// `start`, under the same time limit and signal handling as run_child_command.
ChildOutcome wait_for_child(pid_t pid, const ChildCommand& command,
                            std::chrono::steady_clock::time_point start);

/// "exit 1", "signal 11 (Segmentation fault)", "killed after 300 s": how it ended, in words.
std::string describe_outcome(const ChildOutcome& outcome);

}  // namespace rkt
