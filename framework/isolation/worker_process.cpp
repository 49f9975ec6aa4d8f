#include "framework/isolation/worker_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "framework/base/environment_switch.h"
#include "framework/base/phase_times.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// The only variables a worker inherits: none of them is a secret; the one of ours turns the
// off-stream trace off, so that the worker does not load CUPTI.
constexpr const char* kInheritedVariables[] = {
    "CUDA_VISIBLE_DEVICES", "CUDA_MODULE_LOADING",    "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS",      "MKL_NUM_THREADS",        "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",     "NVIDIA_VISIBLE_DEVICES", kOffStreamTraceVariable};

constexpr int kWorkerSocketFd = 3;  // The descriptor the worker finds its socket on.

// The worker's command line and environment, built before fork: the child of a multithreaded
// process may only make async-signal-safe calls (no allocation) until execve.
struct WorkerCommand {
  std::vector<std::string> arguments, environment;
  std::vector<char*> argv, envp;

  explicit WorkerCommand(const WorkerLaunch& launch) {
    arguments = launch.wrapper;
    for (std::string argument : {launch.wrapper.empty() ? std::string("rkt-worker") : launch.executable,
                                 std::string("--socket"), std::to_string(kWorkerSocketFd)}) {
      arguments.push_back(std::move(argument));
    }
    // No library yet (launch_awaiting_library): its path will be the first message.
    if (launch.library.empty()) {
      arguments.push_back("--library-from-socket");
    } else {
      arguments.push_back("--library");
      arguments.push_back(launch.library);
    }
    if (!launch.change_root) arguments.push_back("--no-chroot");
    if (!launch.seccomp) arguments.push_back("--no-seccomp");
    if (launch.own_device_copies) arguments.push_back("--own-device-copies");
    if (const char* name_refused = std::getenv(kNameRefusedCallsVariable);
        name_refused != nullptr && std::string(name_refused) == "1") {
      arguments.push_back("--name-refused-calls");
    }
    if (!on_unless_set_to_zero(kLightWorkerVariable)) arguments.push_back("--with-libtorch");
    for (const char* name : kInheritedVariables) {
      if (const char* value = std::getenv(name)) environment.push_back(std::string(name) + "=" + value);
    }
    // A wrapper (compute-sanitizer) finds its own tools and writes its temporary files there.
    for (const char* name : {"PATH", "HOME", "TMPDIR"}) {
      const char* value = std::getenv(name);
      if (!launch.wrapper.empty() && value != nullptr) environment.push_back(std::string(name) + "=" + value);
    }
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    for (std::string& entry : environment) envp.push_back(entry.data());
    envp.push_back(nullptr);
  }
};

[[noreturn]] void exec_worker(const std::string& executable, const WorkerCommand& command,
                              int socket, pid_t judge, bool own_group) {
  // In the child: only async-signal-safe calls until execve.
  // A worker must not outlive its judge (a judge killed for a hang would leave a worker spinning
  // on a GPU); the setting survives execve and is set again after the sandbox changes the user.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != judge) _exit(127);
  // A wrapper and the worker it starts form a group of their own, killed together.
  if (own_group) setpgid(0, 0);
  if (socket != kWorkerSocketFd) {
    dup2(socket, kWorkerSocketFd);
  } else {
    fcntl(socket, F_SETFD, 0);
  }
  const int null_input = open("/dev/null", O_RDONLY);
  if (null_input >= 0) dup2(null_input, 0);
  // Every other descriptor (the verdict pipe among them) is closed.
  if (syscall(SYS_close_range, kWorkerSocketFd + 1, ~0U, 0) != 0) {
    for (int fd = kWorkerSocketFd + 1; fd < 65536; ++fd) close(fd);
  }
  execve(executable.c_str(), command.argv.data(), command.envp.data());
  _exit(127);
}

// The wait status of `pid` once it is a zombie (ended, not yet reaped by its parent), from
// /proc/<pid>/stat (state, field 3; exit_code, field 52, Linux 3.5+); nullopt while it runs or
// when the file cannot be read. The kernel shows exit_code only to a process that may trace
// `pid` and prints 0 otherwise: a 0 is taken as read only by root (kStatusUnreadable else).
constexpr int kStatusUnreadable = -1;
std::optional<int> exit_status_of_zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t command_end = text.rfind(')');
  if (command_end == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(command_end + 1));
  std::vector<std::string> values;  // values[0] is field 3
  for (std::string field; fields >> field;) values.push_back(field);
  if (values.size() < 50 || values[0] != "Z") return std::nullopt;
  const int exit_code = std::stoi(values[52 - 3]);
  if (exit_code == 0 && ::geteuid() != 0) return kStatusUnreadable;
  return exit_code;
}

}  // namespace

WorkerProcess::WorkerProcess(const WorkerLaunch& launch) {
  launch_process(launch);
  describe_after_start();
}

std::unique_ptr<WorkerProcess> WorkerProcess::launch_awaiting_library(const WorkerLaunch& launch) {
  WorkerLaunch awaiting = launch;
  awaiting.library.clear();
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess());
  worker->launch_process(awaiting);
  return worker;
}

void WorkerProcess::give_library(const std::string& library) {
  try {
    wire::send_datagram(socket_, {std::string(wire::kLibraryMessagePrefix) + library, {}});
  } catch (const wire::WireError& error) {
    fail(std::string("ended before it was given its library (") + error.what() + ")");
  }
  describe_after_start();
}

void WorkerProcess::describe_after_start() {
  wire::Request describe;
  describe.kind = wire::RequestKind::describe;
  describe.sequence = ++sequence_;
  try {
    wire::send_datagram(socket_, {wire::encode(describe), {}});
    wire::Datagram answer;
    const auto status =
        wire::receive_datagram(socket_, defaults::kWorkerStartupTimeoutSeconds * 1000, answer);
    if (status == wire::ReceiveStatus::timed_out) {
      fail("did not start within " + std::to_string(defaults::kWorkerStartupTimeoutSeconds) + " s");
    }
    if (status == wire::ReceiveStatus::closed) fail("ended while starting");
    description_ = wire::decode_describe_reply(answer.bytes, describe.sequence);
    for (int fd : answer.fds) close(fd);
  } catch (const wire::WireError& error) {
    fail(std::string("broke the protocol while starting (") + error.what() + ")");
  }
}

std::unique_ptr<WorkerProcess> WorkerProcess::launch_for_lending(const WorkerLaunch& launch) {
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess());
  worker->launch_process(launch);
  return worker;
}

void WorkerProcess::launch_process(const WorkerLaunch& launch) {
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw WorkerFailure(std::string("socketpair: ") + std::strerror(errno));
  }
  const int buffer_bytes = 8 << 20;
  for (int s : sockets) {
    setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof buffer_bytes);
    setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
  }
  const WorkerCommand command(launch);
  std::fflush(nullptr);
  const pid_t judge = getpid();
  pid_ = fork();
  if (pid_ < 0) throw WorkerFailure(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    exec_worker(launch.wrapper.empty() ? launch.executable : launch.wrapper.front(), command, sockets[1], judge,
                !launch.wrapper.empty());
  }
  own_group_ = !launch.wrapper.empty();
  if (own_group_) setpgid(pid_, pid_);
  close(sockets[1]);
  socket_ = sockets[0];
}

std::unique_ptr<WorkerProcess> WorkerProcess::adopt(int socket, pid_t pid, int timeout_seconds) {
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess());
  worker->adopted_ = true;
  worker->pid_ = pid;
  worker->socket_ = socket;
  fcntl(socket, F_SETFD, FD_CLOEXEC);  // Lent to this process only, not to its children.
  // A sequence no earlier judge used: a reply left on the socket can never pass for this one's.
  std::random_device entropy;
  worker->sequence_ = (static_cast<std::uint64_t>(entropy()) << 32) | entropy();
  wire::Request adopt;
  adopt.kind = wire::RequestKind::adopt;
  adopt.sequence = ++worker->sequence_;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  try {
    wire::send_datagram(socket, {wire::encode(adopt), {}});
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      wire::Datagram answer;
      const auto status = wire::receive_datagram(socket, std::max<int>(0, left.count()), answer);
      for (int fd : answer.fds) close(fd);
      if (status == wire::ReceiveStatus::timed_out) {
        worker->fail("lent by the main job did not answer within " + std::to_string(timeout_seconds) + " s");
      }
      if (status == wire::ReceiveStatus::closed) worker->fail("lent by the main job has ended");
      try {
        worker->description_ = wire::decode_describe_reply(answer.bytes, adopt.sequence);
        return worker;
      } catch (const wire::WireError&) {
        // A reply to an earlier judge (one that ended mid-request): not ours, read past it.
      }
    }
  } catch (const wire::WireError& error) {
    worker->fail(std::string("lent by the main job broke the protocol (") + error.what() + ")");
  }
}

void WorkerProcess::kill_now() {
  if (socket_ >= 0) close(socket_);
  socket_ = -1;
  if (pid_ <= 0) return;
  kill(own_group_ ? -pid_ : pid_, SIGKILL);
  if (!adopted_) waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool WorkerProcess::finish(int timeout_seconds) {
  if (socket_ >= 0) close(socket_);
  socket_ = -1;
  if (pid_ <= 0 || adopted_) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill_now();
  return false;
}

bool WorkerProcess::running() {
  if (pid_ <= 0 || adopted_) return pid_ > 0;
  if (waitpid(pid_, nullptr, WNOHANG) == 0) return true;
  pid_ = -1;
  return false;
}

int WorkerProcess::inheritable_socket() const { return socket_ >= 0 ? dup(socket_) : -1; }

WorkerProcess::~WorkerProcess() {
  if (socket_ >= 0) close(socket_);
  if (adopted_) return;  // The lending judge keeps it (and reaps it).
  if (pid_ > 0) {
    // Closing the socket ends a well-behaved worker; anything else is killed.
    for (int waited = 0; waited < 50; ++waited) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

double WorkerProcess::cpu_milliseconds() const {
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // After "pid (command) ", the fields from the third on; utime and stime are the 14th and 15th.
  const std::size_t command_end = text.rfind(')');
  if (command_end == std::string::npos) return -1;
  std::istringstream fields(text.substr(command_end + 1));
  std::string field;
  for (int index = 3; index < 14 && fields >> field; ++index) {
  }
  unsigned long long user_ticks = 0, system_ticks = 0;
  if (!(fields >> user_ticks >> system_ticks)) return -1;
  return 1e3 * static_cast<double>(user_ticks + system_ticks) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

double WorkerProcess::runnable_milliseconds() const {
  const std::string tasks = "/proc/" + std::to_string(pid_) + "/task";
  DIR* folder = ::opendir(tasks.c_str());
  if (folder == nullptr) return -1;
  unsigned long long runnable_ns = 0;
  bool read_any = false;
  while (const dirent* entry = ::readdir(folder)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream schedstat(tasks + "/" + entry->d_name + "/schedstat");
    unsigned long long on_processor_ns = 0, waiting_ns = 0;
    if (!(schedstat >> on_processor_ns >> waiting_ns)) continue;  // a thread that just ended
    runnable_ns += on_processor_ns + waiting_ns;
    read_any = true;
  }
  ::closedir(folder);
  return read_any ? static_cast<double>(runnable_ns) / 1e6 : -1;
}

std::string WorkerProcess::how_it_ended() {
  int status = 0;
  bool ended = false;
  // A dying worker gets a moment to end, so that the message can name its signal. A worker this
  // process started is reaped; a lent one is the lender's child, so its status is read from its
  // zombie's /proc/<pid>/stat (the lender reaps it later).
  for (int waited = 0; waited < 100 && !ended; ++waited) {
    if (adopted_) {
      const std::optional<int> zombie_status = exit_status_of_zombie(pid_);
      ended = zombie_status.has_value();
      if (ended) status = *zombie_status;
    } else {
      const pid_t reaped = waitpid(pid_, &status, WNOHANG);
      if (reaped < 0) {
        pid_ = -1;
        return "is gone";
      }
      ended = reaped == pid_;
    }
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!ended) {
    kill(pid_, SIGKILL);
    if (!adopted_) waitpid(pid_, &status, 0);
    pid_ = -1;
    return "was killed by the judge";
  }
  pid_ = -1;
  if (status == kStatusUnreadable) return "ended (its exit status is the lending main job's to see)";
  if (WIFSIGNALED(status)) {
    ended_by_signal_ = WTERMSIG(status);
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int worker_reply_timeout_seconds() {
  const char* text = std::getenv(kWorkerReplyTimeoutVariable);
  if (text == nullptr || *text == '\0') return defaults::kWorkerReplyTimeoutSeconds;
  char* end = nullptr;
  const long seconds = std::strtol(text, &end, 10);
  if (*end != '\0' || seconds < 1 || seconds > 86400) {
    throw std::invalid_argument(std::string(kWorkerReplyTimeoutVariable) + "='" + text +
                                "' is not a whole number of seconds from 1 to 86400");
  }
  return static_cast<int>(seconds);
}

void WorkerProcess::fail(const std::string& what, int hung_after_seconds) {
  std::string message = "the worker process " + what;
  if (pid_ > 0) message += "; it " + how_it_ended();
  if (socket_ >= 0) close(socket_);
  socket_ = -1;
  throw WorkerFailure(message, ended_by_signal_, hung_after_seconds);
}

wire::Reply WorkerProcess::ask(wire::Request request, const std::vector<SharedLocationRef>& buffers,
                               int timeout_seconds) {
  if (socket_ < 0) throw WorkerFailure("the worker process is gone");
  std::vector<int> fds;
  for (const SharedLocationRef& shared : buffers) {
    if (mapped_.count(shared.buffer.id)) continue;
    request.new_buffers.push_back(shared.buffer);
    if (shared.buffer.device == Device::cpu) fds.push_back(shared.fd);
    mapped_.insert(shared.buffer.id);
  }
  for (std::uint64_t id : request.released) mapped_.erase(id);
  request.sequence = ++sequence_;
  try {
    wire::send_datagram(socket_, {wire::encode(request), fds});
  } catch (const wire::WireError& error) {
    fail(std::string("could not be sent a request (") + error.what() + ")");
  }
  wire::Datagram answer;
  wire::ReceiveStatus status;
  try {
    status = wire::receive_datagram(socket_, timeout_seconds * 1000, answer);
  } catch (const wire::WireError& error) {
    fail(std::string("sent an unreadable reply (") + error.what() + ")");
  }
  for (int fd : answer.fds) close(fd);
  if (status == wire::ReceiveStatus::timed_out) {
    fail("did not answer within " + std::to_string(timeout_seconds) + " s (hung)", timeout_seconds);
  }
  if (status == wire::ReceiveStatus::closed) fail("ended during the request");
  wire::Reply reply;
  try {
    reply = wire::decode_reply(answer.bytes);
  } catch (const wire::WireError& error) {
    fail(std::string("sent a malformed reply (") + error.what() + ")");
  }
  if (reply.sequence != request.sequence) {
    fail("sent a reply out of turn (sequence " + std::to_string(reply.sequence) + ", expected " +
         std::to_string(request.sequence) + "): something other than the worker wrote to its socket");
  }
  // The worker's mapping and unmapping is buffer sharing, not the kernel's call.
  reassign_phase_time(Phase::buffer_sharing, reply.mapping_milliseconds);
  // A second message waiting already is a forgery too: the worker sends exactly one reply.
  wire::Datagram extra;
  if (wire::receive_datagram(socket_, 0, extra) == wire::ReceiveStatus::received) {
    for (int fd : extra.fds) close(fd);
    fail("sent more than one reply to one request: something other than the worker wrote to its socket");
  }
  return reply;
}

}  // namespace rkt
