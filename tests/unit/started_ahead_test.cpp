// Judge processes started ahead of their work (framework/supervision/started_ahead.h), with a real
// judge (the adversaries' rkt): handed a job, one becomes it (command line, environment, output);
// it starts holding no secret and none of the starter's descriptors; a job for another start is
// exec'd afresh and says so; one that is gone is never handed anything; one discarded is ended.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "framework/supervision/started_ahead.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The exit code of `pid` (a child of this process), or -1 when it did not exit within 60 s.
int exit_code_of(pid_t pid) {
  for (int waited = 0; waited < 6000; ++waited) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  return -1;
}

// Waits until `pid` has exec'd the judge (its command line names the marker).
bool waits_as_started_ahead(pid_t pid) {
  for (int tries = 0; tries < 3000; ++tries) {
    if (read_file("/proc/" + std::to_string(pid) + "/cmdline").find(kStartedAheadArgument) != std::string::npos) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// `rkt list --json` handed to `process`, its output in `output_path`; the exit code.
int hand_list(ProcessStartedAhead& process, const std::string& output_path,
              const std::map<std::string, std::string>& environment = {}) {
  HandedOverJob job;
  job.argv = {RKT_ADVERSARIES_EXECUTABLE, "list", "--json"};
  job.environment = environment_with(environment);
  const int output = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  job.standard_output = output;
  job.standard_error = output;
  const bool handed = process.hand_over(job);
  ::close(output);
  if (!handed) return -2;
  return exit_code_of(process.pid());
}

std::string temporary_path(const std::string& name) {
  return ::testing::TempDir() + "/started_ahead_" + std::to_string(::getpid()) + "_" + name;
}

TEST(StartedAhead, BecomesTheJobItIsHanded) {
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {}, true);
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waits_as_started_ahead(process->pid()));
  EXPECT_TRUE(process->waiting());
  const std::string output = temporary_path("list.json");
  ASSERT_EQ(hand_list(*process, output), 0) << read_file(output);
  const std::string listing = read_file(output);
  EXPECT_THAT(listing, HasSubstr("\"kernels\"")) << "its output went to the job's file";
  EXPECT_THAT(listing, HasSubstr("relu")) << listing.substr(0, 400);
  EXPECT_THAT(listing, Not(HasSubstr("started afresh")));
  EXPECT_FALSE(process->waiting()) << "handed over, it is the job's";
}

TEST(StartedAhead, TheJobsEnvironmentIsTheOneItRunsWith) {
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {}, true);
  ASSERT_NE(process, nullptr);
  const std::string output = temporary_path("missing_library.txt");
  // A kernel library that does not exist, named only in the job's environment: the judge that
  // ran the job must have read it.
  EXPECT_EQ(hand_list(*process, output, {{"RKT_KERNEL_LIBRARY", "/nonexistent/libnone.so"}}), 2);
  EXPECT_THAT(read_file(output), HasSubstr("/nonexistent/libnone.so"));
}

TEST(StartedAhead, StartsWithoutSecretsOrTheStartersDescriptors) {
  ::setenv("RKT_SECRET_SEED", "424242", 1);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);  // inheritable, as the supervisor's verdict pipe is
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {}, true);
  ::unsetenv("RKT_SECRET_SEED");
  ASSERT_NE(process, nullptr);
  ASSERT_TRUE(waits_as_started_ahead(process->pid()));
  // A pipe's reader sees its end only when no process holds the writing end: the process started
  // ahead does not, so a verdict pipe of another child can never be held open by it.
  ::close(pipe_fds[1]);
  pollfd reader{pipe_fds[0], POLLIN, 0};
  ASSERT_EQ(::poll(&reader, 1, 5000), 1) << "the process started ahead holds the starter's pipe";
  char byte = 0;
  EXPECT_EQ(::read(pipe_fds[0], &byte, 1), 0);
  ::close(pipe_fds[0]);
  EXPECT_TRUE(process->waiting());
  if (::geteuid() != 0) {
    GTEST_SKIP() << "the environment of a judge (not dumpable) can be read only by root; the "
                    "descriptor check above ran";
  }
  const std::string environment = read_file("/proc/" + std::to_string(process->pid()) + "/environ");
  EXPECT_THAT(environment, HasSubstr(std::string(kHandOverSocketVariable) + "=3"));
  EXPECT_THAT(environment, Not(HasSubstr("RKT_SECRET_SEED"))) << "a process with no job holds no secret";
}

TEST(StartedAhead, AJobForAnotherStartIsStartedAfreshAndSaysSo) {
  // Started with a variable LibTorch reads as it loads; the job's environment lacks it.
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {{"OMP_NUM_THREADS", "3"}}, true);
  ASSERT_NE(process, nullptr);
  const std::string output = temporary_path("afresh.json");
  ::unsetenv("OMP_NUM_THREADS");
  ASSERT_EQ(hand_list(*process, output), 0) << read_file(output);
  const std::string text = read_file(output);
  EXPECT_THAT(text, HasSubstr("was handed another start's job (the variable OMP_NUM_THREADS differs); it starts afresh"));
  EXPECT_THAT(text, HasSubstr("\"kernels\"")) << "the job still ran, in a fresh exec";
}

TEST(StartedAhead, OneThatIsGoneIsNeverHandedAJob) {
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {}, true);
  ASSERT_NE(process, nullptr);
  ::kill(process->pid(), SIGKILL);
  bool still_waiting = true;  // until the kill lands, up to a minute on a loaded machine
  for (int polls = 0; polls < 6000 && (still_waiting = process->waiting()); ++polls) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(still_waiting);
  EXPECT_EQ(hand_list(*process, temporary_path("gone.json")), -2);
}

TEST(StartedAhead, OneNobodyTookIsEndedWhenDiscarded) {
  auto process = ProcessStartedAhead::start(RKT_ADVERSARIES_EXECUTABLE, "list", {}, true);
  ASSERT_NE(process, nullptr);
  const pid_t pid = process->pid();
  process.reset();
  EXPECT_EQ(::kill(pid, 0), -1) << "the discarded process is still there";
}

}  // namespace
}  // namespace rkt
