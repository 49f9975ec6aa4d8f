#include "framework/supervision/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "framework/base/record_fields.h"
#include "framework/cases/case_selection.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/isolation/kernel_library.h"
#include "framework/supervision/case_records_json.h"
#include "framework/supervision/started_ahead.h"
#include "framework/supervision/verdict_channel.h"

namespace rkt {
namespace {

std::string fresh_nonce() {
  std::random_device device;
  std::ostringstream text;
  for (int i = 0; i < 4; ++i) text << std::hex << device();
  return text.str();
}

std::string with_exclusions(const std::string& filter, const std::set<std::string>& excluded) {
  if (excluded.empty()) return filter;
  std::string result = filter;
  result += filter.find('-') == std::string::npos ? "-" : ":";
  bool first = true;
  for (const std::string& name : excluded) {
    result += (first ? "" : ":") + name;
    first = false;
  }
  return result;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended with wait status " + std::to_string(status);
}

// The children started ahead (start_child_ahead) that no run has taken yet, oldest first.
std::mutex started_ahead_mutex;
std::deque<std::unique_ptr<ProcessStartedAhead>>& children_started_ahead() {
  static auto* queue = new std::deque<std::unique_ptr<ProcessStartedAhead>>;
  return *queue;
}

// The oldest child started ahead for `executable` that still waits; nullptr when there is none.
std::unique_ptr<ProcessStartedAhead> take_child_started_ahead(const std::string& executable) {
  const std::lock_guard<std::mutex> hold(started_ahead_mutex);
  auto& queue = children_started_ahead();
  while (!queue.empty()) {
    std::unique_ptr<ProcessStartedAhead> child = std::move(queue.front());
    queue.pop_front();
    if (child->executable() == executable && child->waiting()) return child;
  }
  return nullptr;
}

// Hands `child` the case run a fork of this process would have started: the verdict pipe, the
// secrets channel and a lent worker's socket go as descriptors; false when it was gone.
bool hand_over_cases(ProcessStartedAhead& child, const std::vector<std::string>& args,
                     int verdict_fd, const std::string& nonce, int secrets_fd, bool echo_output) {
  HandedOverJob job;
  job.argv = args;
  job.environment = environment_with({{kVerdictNonceVariable, nonce}});
  job.descriptors[kVerdictFdVariable] = verdict_fd;
  if (secrets_fd >= 0) job.descriptors[kSecretsFdVariable] = secrets_fd;
  if (const char* lent = std::getenv(kLentWorkerSocketVariable)) {
    job.descriptors[kLentWorkerSocketVariable] = std::atoi(lent);
  }
  // Its output where a fork's would go: ours, or nowhere.
  const int null_output = echo_output ? -1 : ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  job.standard_output = echo_output ? 1 : null_output;
  job.standard_error = echo_output ? 2 : null_output;
  const bool handed = child.hand_over(job);
  if (null_output >= 0) ::close(null_output);
  return handed;
}

struct ChildResult {
  bool started_ahead = false;  ///< a child started ahead ran the cases (not a fork of this run)
  std::vector<CaseRecord> ended;
  std::string running;  ///< A case that started and never ended.
  std::chrono::steady_clock::time_point running_since{};
  CaseDetails running_inputs{};  ///< The inputs `running` last announced (none: known == false).
  PhaseTimes running_phases{};   ///< The phases `running` reported before its end.
  bool complete = false;
  bool timed_out = false;
  int wait_status = 0;
};

ChildResult run_child(const SupervisionOptions& options, const std::string& filter) {
  ChildResult result;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe() failed");
  const std::string nonce = fresh_nonce();
  const int secrets_fd = make_secrets_channel();
  std::vector<std::string> args = {options.executable, "--rkt-child", "--gtest_filter=" + filter};
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  std::unique_ptr<ProcessStartedAhead> ready = take_child_started_ahead(options.executable);
  if (ready && hand_over_cases(*ready, args, pipe_fds[1], nonce, secrets_fd, options.echo_child_output)) {
    result.started_ahead = true;
  }
  const pid_t supervisor = ::getpid();
  const pid_t pid = result.started_ahead ? ready->pid() : ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    // A child must not outlive its supervisor: in a group of its own it gets no Ctrl-C, and a
    // supervisor killed (a --file-timeout of rkt eval, a kill of rkt run) would leave it waiting
    // forever on a worker that spins in a hung kernel. The setting survives execv.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != supervisor) ::_exit(127);
    ::setpgid(0, 0);
    ::close(pipe_fds[0]);
    ::setenv(kVerdictFdVariable, std::to_string(pipe_fds[1]).c_str(), 1);
    ::setenv(kVerdictNonceVariable, nonce.c_str(), 1);
    if (secrets_fd >= 0) ::setenv(kSecretsFdVariable, std::to_string(secrets_fd).c_str(), 1);
    if (!options.echo_child_output) {
      const int null_fd = ::open("/dev/null", O_WRONLY);
      ::dup2(null_fd, 1);
      ::dup2(null_fd, 2);
    }
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(options.executable.c_str(), argv.data());
    std::perror("rkt: execv");
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(pipe_fds[1]);
  if (secrets_fd >= 0) ::close(secrets_fd);

  const std::string prefix = "RKT " + nonce + " ";
  std::string buffer;
  auto last_record = std::chrono::steady_clock::now();
  auto last_heartbeat = last_record;  // the last report of the running case (on_progress)
  bool seen_record = false;
  // The running case waits for its GPU, which another judge is timing on ("waiting WHY" ...
  // "resumed"): no case clock runs meanwhile; the holder's own supervisor bounds its hold.
  std::string waiting_for_device;
  while (true) {
    pollfd poll_fd{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, 1000);
    if (options.on_progress && !result.running.empty() && options.progress_interval_seconds > 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_heartbeat >= std::chrono::seconds(options.progress_interval_seconds)) {
        last_heartbeat = now;
        options.on_progress({CaseProgress::Event::still_running, result.running, waiting_for_device,
                             std::chrono::duration<double>(now - result.running_since).count()});
      }
    }
    if (ready == 0) {
      // Before its first record a child is still loading (LibTorch takes seconds on a busy
      // machine): the case timeout starts with the first case.
      const int limit = seen_record ? case_timeout_for(options, result.running)
                                    : std::max(case_timeout_for(options, result.running), kChildStartupSeconds);
      const auto silent = std::chrono::steady_clock::now() - last_record;
      if (waiting_for_device.empty() && silent > std::chrono::seconds(limit)) {
        result.timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      continue;
    }
    char chunk[4096];
    const ssize_t n = ::read(pipe_fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
      const std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      if (line.compare(0, prefix.size(), prefix) != 0) continue;  // Not ours: ignored.
      std::istringstream fields(line.substr(prefix.size()));
      std::string kind;
      fields >> kind;
      seen_record = true;
      if (kind == "phases") {
        // Where the case's time went; joins the case's record at its end.
        std::string name, times;
        fields >> name;
        std::getline(fields, times);
        if (name == result.running) result.running_phases = parse_phase_times(times);
        continue;
      }
      if (kind == "inputs") {
        // Not a sign of progress: the case timeout bounds the whole case, however many inputs
        // it draws (a property's trials).
        std::string name, details;
        fields >> name;
        std::getline(fields, details);
        if (!details.empty() && details[0] == ' ') details.erase(0, 1);
        details = unescape_record_field(details);
        if (name == result.running) result.running_inputs = take_case_details(details);
        continue;
      }
      last_record = std::chrono::steady_clock::now();
      if (kind == "waiting") {
        std::getline(fields, waiting_for_device);
        if (!waiting_for_device.empty() && waiting_for_device[0] == ' ') waiting_for_device.erase(0, 1);
        waiting_for_device = unescape_record_field(waiting_for_device);
        if (waiting_for_device.empty()) waiting_for_device = "waiting for the device";
      } else if (kind == "resumed") {
        waiting_for_device.clear();
      } else if (kind == "start") {
        fields >> result.running;
        result.running_since = last_record;
        result.running_inputs = {};
        result.running_phases = {};
        last_heartbeat = last_record;
        if (options.on_progress) options.on_progress({CaseProgress::Event::started, result.running, "", 0});
      } else if (kind == "end") {
        CaseRecord record;
        fields >> record.name >> record.status >> record.milliseconds;
        std::string message;
        std::getline(fields, message);
        if (!message.empty() && message[0] == ' ') message.erase(0, 1);
        record.message = unescape_record_field(message);
        record.details = take_case_details(record.message);
        if (record.name == result.running) record.phases = result.running_phases;
        if (options.on_case_recorded) options.on_case_recorded(record);
        if (options.on_progress) {
          options.on_progress({CaseProgress::Event::ended, record.name, record.status,
                               record.milliseconds / 1000});
        }
        result.ended.push_back(record);
        result.running.clear();
        result.running_inputs = {};
      } else if (kind == "complete") {
        result.complete = true;
      }
    }
  }
  ::close(pipe_fds[0]);
  ::waitpid(pid, &result.wait_status, 0);
  ::kill(-pid, SIGKILL);  // Anything the kernel left running in the child's group.
  return result;
}

// "dims B=3 N=5, scale 1, seed 42, config default" (the seed "withheld" under a secret seed).
std::string describe_case_inputs(const CaseDetails& details) {
  std::ostringstream text;
  text << "dims";
  for (const auto& [name, size] : details.dims) text << " " << name << "=" << size;
  text << ", scale " << details.scale << ", seed "
       << (details.seed_known ? std::to_string(details.seed) : "withheld") << ", config "
       << details.config;
  return text.str();
}

}  // namespace

void start_child_ahead(const std::string& executable, std::size_t waiting) {
  if (!starting_ahead_enabled()) return;
  const std::lock_guard<std::mutex> hold(started_ahead_mutex);
  auto& queue = children_started_ahead();
  queue.erase(std::remove_if(queue.begin(), queue.end(),
                             [](const std::unique_ptr<ProcessStartedAhead>& child) { return !child->waiting(); }),
              queue.end());
  while (queue.size() < waiting) {
    std::unique_ptr<ProcessStartedAhead> child =
        ProcessStartedAhead::start(executable, "--rkt-child", {}, /*end_with_parent=*/true);
    if (!child) return;  // fork failed: the run forks its child when it needs one
    queue.push_back(std::move(child));
  }
}

std::size_t discard_children_started_ahead() {
  const std::lock_guard<std::mutex> hold(started_ahead_mutex);
  const std::size_t discarded = children_started_ahead().size();
  children_started_ahead().clear();
  return discarded;
}

int SupervisedRun::count(const std::string& status) const {
  int n = 0;
  for (const CaseRecord& record : cases) n += record.status == status;
  return n;
}

SupervisedRun run_supervised(const SupervisionOptions& options) {
  SupervisedRun run;
  std::set<std::string> finished;
  while (true) {
    ChildResult child = run_child(options, with_exclusions(options.gtest_filter, finished));
    ++run.processes;
    run.processes_started_ahead += child.started_ahead ? 1 : 0;
    for (const CaseRecord& record : child.ended) {
      run.cases.push_back(record);
      finished.insert(record.name);
    }
    const bool exited_normally = WIFEXITED(child.wait_status) &&
                                 (WEXITSTATUS(child.wait_status) == 0 ||
                                  WEXITSTATUS(child.wait_status) == 1);
    if (child.complete && exited_normally && child.running.empty()) break;

    std::string what;
    if (child.timed_out) {
      what = "produced no verdict within " + std::to_string(case_timeout_for(options, child.running)) +
             " s and was killed (hang)";
    } else if (WIFEXITED(child.wait_status) && WEXITSTATUS(child.wait_status) == 0) {
      what = "ended the process with exit status 0 before the framework wrote its verdict "
             "(early exit such as exit(0), quick_exit or _exit): a forged success is a failure";
    } else {
      what = "ended the process: it " + describe_wait_status(child.wait_status) +
             " before the framework wrote its verdict";
    }
    if (child.running.empty()) {
      // A child started ahead that never ran a case may have failed to take its job (its
      // output was /dev/null until then): say how to start children afresh.
      const std::string started_ahead =
          child.started_ahead && child.ended.empty()
              ? " (it was started ahead and handed its cases; RKT_START_AHEAD=0 starts each child "
                "afresh, and shows what it prints)"
              : "";
      run.problems.push_back("a test process " + what +
                             (child.ended.empty() ? ", before running any case"
                                                  : ", between cases") + started_ahead);
      break;
    }
    // The record keeps what the case last announced it would run its kernel on, so that a hung
    // case can be replayed (its details, hence `reproduce`) and its message names the inputs.
    CaseRecord crashed{child.running, "crashed",
                       std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                 child.running_since)
                           .count(),
                       "the case " + what, child.running_inputs};
    if (crashed.details.known) {
      crashed.message += "; it was running on " + describe_case_inputs(crashed.details);
    }
    if (options.on_progress) {
      options.on_progress({CaseProgress::Event::ended, crashed.name, crashed.status,
                           crashed.milliseconds / 1000});
    }
    run.cases.push_back(crashed);
    if (options.on_case_recorded) options.on_case_recorded(crashed);
    finished.insert(child.running);
    if (child.timed_out) {
      // Fail fast: the kernel hangs, and each of its other cases would wait out a timeout of its
      // own. They are recorded as not run, with the reason; other kernels' cases still run.
      const std::string suite = child.running.substr(0, child.running.rfind('.')) + ".";
      const std::string reason = "not run: " + child.running.substr(suite.size()) + " hung after " +
                                 std::to_string(case_timeout_for(options, child.running)) + " s";
      for (const std::string& name :
           selected_case_names({}, with_exclusions(options.gtest_filter, finished))) {
        if (name.rfind(suite, 0) != 0 || finished.count(name) != 0) continue;
        CaseRecord not_run{name, "skipped", 0, reason, {}};
        run.cases.push_back(not_run);
        if (options.on_case_recorded) options.on_case_recorded(not_run);
        finished.insert(name);
      }
    }
    const std::string died = child.running.substr(child.running.rfind('.') + 1) +
                             (child.timed_out ? " hung" : " crashed");
    for (const std::string& name : options.cases_needing_a_clean_run) {
      if (finished.count(name) != 0) continue;
      CaseRecord not_run{name, "skipped", 0, "not run: " + died + " before it", {}};
      run.cases.push_back(not_run);
      if (options.on_case_recorded) options.on_case_recorded(not_run);
      finished.insert(name);
    }
    if (options.after_abnormal_end) options.after_abnormal_end();
  }
  return run;
}

int case_timeout_for(const SupervisionOptions& options, const std::string& name) {
  const auto found = options.case_timeout_overrides.find(name);
  return found != options.case_timeout_overrides.end() ? found->second : options.case_timeout_seconds;
}

int supervised_exit_code(const SupervisedRun& run) {
  if (!run.problems.empty() || run.count("failed") > 0 || run.count("crashed") > 0) return 1;
  if (run.cases.empty()) return 1;
  if (run.count("passed") == 0) return 77;
  return 0;
}

std::string summarize(const SupervisedRun& run) {
  std::ostringstream text;
  for (const CaseRecord& record : run.cases) {
    if (record.status == "passed") continue;
    text << "[" << record.status << "] " << record.name << "\n";
    if (!record.message.empty()) text << "    " << record.message << "\n";
  }
  for (const std::string& problem : run.problems) text << "[problem] " << problem << "\n";
  if (run.cases.empty()) text << "[problem] no test case matched the filter\n";
  text << run.count("passed") << " passed, " << run.count("failed") + run.count("crashed")
       << " failed, " << run.count("skipped") << " skipped\n";
  return text.str();
}

}  // namespace rkt
