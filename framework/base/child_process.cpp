#include "framework/base/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

extern char** environ;

namespace rkt {
namespace {

constexpr int kChildPollMilliseconds = 5;  // [ms] between looks at a running child

// The process groups of the commands running now, so that a Ctrl-C or a kill of rkt ends them
// too: each runs in a group of its own (for its time limit), where the terminal's signal does not
// reach it, and a child judge left behind would go on judging a whole file.
constexpr int kMaxRunningChildren = 512;  // [commands] more than any --jobs or GPU count
std::atomic<pid_t> running_groups[kMaxRunningChildren];

extern "C" void end_children_and_die(int signal_number) {
  for (std::atomic<pid_t>& group : running_groups) {
    const pid_t pid = group.load();
    if (pid > 0) ::kill(-pid, SIGKILL);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// Once per process: SIGINT, SIGTERM and SIGHUP end the running children first. A signal the
// process was started ignoring (a background job's SIGINT, nohup's SIGHUP) stays ignored.
void install_child_reaper() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
        continue;
      struct sigaction reaper {};
      reaper.sa_handler = end_children_and_die;
      sigemptyset(&reaper.sa_mask);
      ::sigaction(signal_number, &reaper, nullptr);
    }
  });
}

// Records `pid` as running (its slot), or returns -1 when every slot is taken.
int remember_running(pid_t pid) {
  for (int slot = 0; slot < kMaxRunningChildren; ++slot) {
    pid_t free_slot = 0;
    if (running_groups[slot].compare_exchange_strong(free_slot, pid)) return slot;
  }
  return -1;
}

}  // namespace

std::vector<std::string> environment_with(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    if (overrides.count(text.substr(0, text.find('='))) == 0) entries.push_back(text);
  }
  for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
  return entries;
}

ChildOutcome run_child_command(const ChildCommand& command) {
  install_child_reaper();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> environment_text = environment_with(command.environment);
  std::vector<char*> envp;
  for (std::string& text : environment_text) envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = command.argv;
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Not O_CLOEXEC: that closed the child's standard output at its exec, so the child judge's
  // first socketpair took descriptor 1 and its progress lines went to its worker, which died of
  // "protocol error: not a request message" and was started again (every eval judge did so).
  posix_spawn_file_actions_addopen(&actions, 1, command.output_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!command.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, command.working_directory.c_str());
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A process group of its own, so that a time limit ends the command's children with it
  // (cc1plus, a child judge's supervised children and workers, a sanitizer's target).
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    ChildOutcome outcome;
    outcome.problem = "could not start " + command.argv[0] + ": " + std::strerror(error);
    return outcome;
  }
  return wait_for_child(pid, command, start);
}

ChildOutcome wait_for_child(pid_t pid, const ChildCommand& command,
                            std::chrono::steady_clock::time_point start) {
  install_child_reaper();
  ChildOutcome outcome;
  outcome.started = true;
  const int slot = remember_running(pid);
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0) {
      outcome.problem = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (command.timeout_seconds > 0 && elapsed() > command.timeout_seconds) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kChildPollMilliseconds));
  }
  if (slot >= 0) running_groups[slot].store(0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.seconds = elapsed();
  return outcome;
}

std::string describe_outcome(const ChildOutcome& outcome) {
  if (!outcome.started) return outcome.problem;
  if (outcome.timed_out)
    return "killed after " + std::to_string(static_cast<int>(outcome.seconds)) + " s";
  if (outcome.signal != 0) {
    return "signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
  }
  return "exit " + std::to_string(outcome.exit_code);
}

}  // namespace rkt
