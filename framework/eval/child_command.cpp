#include "framework/eval/child_command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace rkt {

ChildOutcome run_child_command(const ChildCommand& command) {
  ChildOutcome outcome;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> environment_text;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (command.environment.count(name) == 0) environment_text.push_back(text);
  }
  for (const auto& [name, value] : command.environment) environment_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& text : environment_text) envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = command.argv;
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, command.output_file.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (!command.working_directory.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, command.working_directory.c_str());
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A process group of its own, so that a time limit ends the compiler's or the judge's children
  // with it (cc1plus, the judge's supervised children and workers).
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    outcome.problem = "could not start " + command.argv[0] + ": " + std::strerror(error);
    return outcome;
  }
  outcome.started = true;
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
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.seconds = elapsed();
  return outcome;
}

std::string describe_outcome(const ChildOutcome& outcome) {
  if (!outcome.started) return outcome.problem;
  if (outcome.timed_out) return "killed after " + std::to_string(static_cast<int>(outcome.seconds)) + " s";
  if (outcome.signal != 0) {
    return "signal " + std::to_string(outcome.signal) + " (" + strsignal(outcome.signal) + ")";
  }
  return "exit " + std::to_string(outcome.exit_code);
}

}  // namespace rkt
