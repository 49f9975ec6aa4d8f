// Judge processes started ahead of their work. A judge's start (exec, LibTorch, the CUDA context)
// costs about a second on a GPU machine; started before its work is known, it overlaps work that
// has to happen anyway (the worker's start, the compiler, the previous file's judge). Its work
// comes later through a socket: the command line, the whole environment and the descriptors an
// exec would have given it. Each serves one job, then ends as the process it became: nothing of
// one job survives into another, exactly as with a process started for it.
#pragma once

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "framework/base/child_process.h"
#include "framework/base/start_ahead_switch.h"

namespace rkt {

/// The marker argument of a process started ahead: `rkt --rkt-started-ahead COMMAND`, where
/// COMMAND ("run", "--rkt-child") is the command it will be handed (its warm-up depends on it).
inline constexpr const char* kStartedAheadArgument = "--rkt-started-ahead";
/// The variable that gives a process started ahead the descriptor of its end of the socket.
inline constexpr const char* kHandOverSocketVariable = "RKT_HAND_OVER_SOCKET";

/// The work handed to a process started ahead: what execve(argv[0], argv, environment) would run,
/// with `descriptors` open in it.
struct HandedOverJob {
  std::vector<std::string> argv;         ///< argv[0]: the executable it was started as
  std::vector<std::string> environment;  ///< "NAME=VALUE", the whole environment
  std::string working_directory;         ///< "" keeps the one it started in
  /// Descriptors the job needs, each under the variable that names its number (RKT_VERDICT_FD,
  /// RKT_SECRETS_FD, RKT_LENT_WORKER_SOCKET): the number the process receives it as is written
  /// into that variable. The sender keeps its own copies.
  std::map<std::string, int> descriptors;
  int standard_output = -1;  ///< >= 0: becomes the process's standard output (the sender's copy)
  int standard_error = -1;   ///< >= 0: becomes its standard error
};

/// The judge's side of one process started ahead, before and until its hand-over.
class ProcessStartedAhead {
 public:
  /// Forks and execs `executable kStartedAheadArgument command` in a process group of its own, with
  /// this process's environment less rkt's own variables (RKT_*: a secret seed is never in a
  /// process that has no job yet) and `environment` on top, the hand-over socket, no other descriptor of this process
  /// (a pipe it inherited would never see its end), and /dev/null for its standard streams until
  /// its job gives it others (what it might print while it waits goes nowhere). With
  /// `end_with_parent` it is killed when the thread that started it ends (prctl PDEATHSIG).
  /// nullptr when fork fails.
  static std::unique_ptr<ProcessStartedAhead> start(const std::string& executable,
                                                    const std::string& command,
                                                    const std::map<std::string, std::string>& environment,
                                                    bool end_with_parent);
  ProcessStartedAhead(const ProcessStartedAhead&) = delete;
  ProcessStartedAhead& operator=(const ProcessStartedAhead&) = delete;
  /// Not handed over: killed (its group) and reaped.
  ~ProcessStartedAhead();

  pid_t pid() const { return pid_; }
  const std::string& executable() const { return executable_; }
  const std::string& command() const { return command_; }
  /// The environment it was started with, on top of this process's (start's `environment`).
  const std::map<std::string, std::string>& start_environment() const { return environment_; }
  /// Whether it still waits for its job (not ended).
  bool waiting();
  /// Sends `job`. True: the process is now the job's and the caller waits for it (waitpid, as for
  /// a child it started); this object no longer kills it. False: it was gone (the caller starts
  /// the job the ordinary way).
  bool hand_over(const HandedOverJob& job);

 private:
  ProcessStartedAhead() = default;
  pid_t pid_ = -1;
  int socket_ = -1;
  bool handed_over_ = false;
  std::string executable_, command_;
  std::map<std::string, std::string> environment_;
};

/// In `rkt`'s main, first: a process started ahead (argv[1] is kStartedAheadArgument) runs
/// `warm_up(command)`, waits for its job and becomes it: its environment, descriptors, output and
/// folder are the job's, and the returned vector is the command line to run. A job whose
/// environment differs from the start's other than in RKT_* variables (which rkt reads only later)
/// or whose command is another is exec'd afresh instead, so a warm-up never stands in for a
/// different start. nullopt: not started ahead. A starter that went away ends the process (exit 0).
std::optional<std::vector<std::string>> become_handed_over_job(
    int argc, char** argv, const std::function<void(const std::string& command)>& warm_up);

}  // namespace rkt
