#include "framework/supervision/started_ahead.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "framework/wire/wire_message.h"

namespace rkt {
namespace {

constexpr int kHandOverSocketFd = 3;  // where a process started ahead finds its socket

bool ours(const std::string& entry) { return entry.rfind("RKT_", 0) == 0; }

// The entries of `environment` that rkt does not own (RKT_* are read after the hand-over).
std::vector<std::string> outside_rkt(std::vector<std::string> environment) {
  std::vector<std::string> kept;
  for (std::string& entry : environment) {
    if (!ours(entry)) kept.push_back(std::move(entry));
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// "" when the two environments are equal, else the first variable that differs, named.
std::string first_difference(const std::vector<std::string>& started, const std::vector<std::string>& job) {
  const auto name = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  const auto mismatch = std::mismatch(started.begin(), started.end(), job.begin(), job.end());
  if (mismatch.first == started.end() && mismatch.second == job.end()) return "";
  const std::string variable = mismatch.first != started.end() ? name(*mismatch.first) : name(*mismatch.second);
  return "the variable " + variable + " differs";
}

std::string encode(const HandedOverJob& job, std::vector<int>& fds) {
  wire::WireWriter writer;
  writer.u64(job.argv.size());  // counts as WireReader::count reads them
  for (const std::string& argument : job.argv) writer.str(argument);
  writer.u64(job.environment.size());
  for (const std::string& entry : job.environment) writer.str(entry);
  writer.str(job.working_directory);
  writer.u64(job.descriptors.size());
  for (const auto& [variable, fd] : job.descriptors) {
    writer.str(variable);
    fds.push_back(fd);
  }
  for (const int fd : {job.standard_output, job.standard_error}) {
    writer.u32(fd >= 0 ? 1 : 0);
    if (fd >= 0) fds.push_back(fd);
  }
  return writer.bytes();
}

// The job as received: descriptors are the receiver's (received ones), in the order sent.
HandedOverJob decode(const wire::Datagram& datagram) {
  wire::WireReader reader(datagram.bytes);
  HandedOverJob job;
  for (std::uint64_t n = reader.count(4); n > 0; --n) job.argv.push_back(reader.str());
  for (std::uint64_t n = reader.count(4); n > 0; --n) job.environment.push_back(reader.str());
  job.working_directory = reader.str();
  std::size_t next_fd = 0;
  for (std::uint64_t n = reader.count(4); n > 0; --n) {
    const std::string variable = reader.str();
    if (next_fd >= datagram.fds.size()) throw wire::WireError("a descriptor of the job is missing");
    job.descriptors[variable] = datagram.fds[next_fd++];
  }
  for (int* standard : {&job.standard_output, &job.standard_error}) {
    if (reader.u32() == 0) continue;
    if (next_fd >= datagram.fds.size()) throw wire::WireError("a standard stream of the job is missing");
    *standard = datagram.fds[next_fd++];
  }
  if (job.argv.empty()) throw wire::WireError("a job without a command line");
  return job;
}

void clear_close_on_exec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) & ~FD_CLOEXEC); }

// Makes this process the job's: environment, descriptors, output, folder.
void apply(HandedOverJob& job) {
  ::clearenv();
  for (const std::string& entry : job.environment) {
    const std::size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    ::setenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str(), 1);
  }
  for (const auto& [variable, fd] : job.descriptors) {
    clear_close_on_exec(fd);  // as inherited through an exec: its children may be handed it on
    ::setenv(variable.c_str(), std::to_string(fd).c_str(), 1);
  }
  std::cout.flush();
  std::cerr.flush();
  if (job.standard_output >= 0) ::dup2(job.standard_output, 1);
  if (job.standard_error >= 0) ::dup2(job.standard_error, 2);
  for (const int fd : {job.standard_output, job.standard_error}) {
    if (fd > 2) ::close(fd);
  }
  if (!job.working_directory.empty() && ::chdir(job.working_directory.c_str()) != 0) {
    std::cerr << "rkt: error: could not enter " << job.working_directory << ": " << std::strerror(errno) << "\n";
    std::_Exit(2);
  }
}

}  // namespace

std::unique_ptr<ProcessStartedAhead> ProcessStartedAhead::start(
    const std::string& executable, const std::string& command,
    const std::map<std::string, std::string>& environment, bool end_with_parent) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) return nullptr;
  // Everything the child needs is built before fork: a multithreaded parent's child may only make
  // async-signal-safe calls until execve.
  // None of rkt's own variables (a secret seed among them): the job brings those it needs.
  std::vector<std::string> entries = outside_rkt(environment_with(environment));
  entries.push_back(std::string(kHandOverSocketVariable) + "=" + std::to_string(kHandOverSocketFd));
  std::vector<char*> envp;
  for (std::string& entry : entries) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = {executable, kStartedAheadArgument, command};
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    return nullptr;
  }
  if (pid == 0) {
    if (end_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
    }
    ::setpgid(0, 0);
    const int null_device = ::open("/dev/null", O_RDWR);
    if (null_device < 0) ::_exit(127);
    for (int standard = 0; standard <= 2; ++standard) ::dup2(null_device, standard);
    // Its end of the socket at kHandOverSocketFd, surviving the exec; every other descriptor closed.
    if (sockets[1] == kHandOverSocketFd) {
      ::fcntl(sockets[1], F_SETFD, 0);
    } else if (::dup2(sockets[1], kHandOverSocketFd) < 0) {
      ::_exit(127);
    }
    if (::syscall(SYS_close_range, kHandOverSocketFd + 1, ~0U, 0) != 0) {
      for (int fd = kHandOverSocketFd + 1; fd < 65536; ++fd) ::close(fd);
    }
    ::execve(executable.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(sockets[1]);
  std::unique_ptr<ProcessStartedAhead> process(new ProcessStartedAhead());
  process->pid_ = pid;
  process->socket_ = sockets[0];
  process->executable_ = executable;
  process->command_ = command;
  process->environment_ = environment;
  return process;
}

ProcessStartedAhead::~ProcessStartedAhead() {
  if (socket_ >= 0) ::close(socket_);
  if (handed_over_ || pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
}

bool ProcessStartedAhead::waiting() {
  if (handed_over_ || pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == 0) return true;
  pid_ = -1;  // ended (and reaped): never handed anything
  return false;
}

bool ProcessStartedAhead::hand_over(const HandedOverJob& job) {
  if (!waiting()) return false;
  std::vector<int> fds;
  wire::Datagram datagram;
  datagram.bytes = encode(job, fds);
  datagram.fds = fds;
  try {
    wire::send_datagram(socket_, datagram);
  } catch (const wire::WireError&) {
    return false;
  }
  handed_over_ = true;
  ::close(socket_);
  socket_ = -1;
  return true;
}

std::optional<std::vector<std::string>> become_handed_over_job(
    int argc, char** argv, const std::function<void(const std::string& command)>& warm_up) {
  if (argc < 3 || std::string(argv[1]) != kStartedAheadArgument) return std::nullopt;
  const std::string command = argv[2];
  const char* socket_text = std::getenv(kHandOverSocketVariable);
  if (socket_text == nullptr) {
    std::cerr << "rkt: error: " << kStartedAheadArgument << " is for processes rkt starts itself\n";
    std::_Exit(2);
  }
  const int socket = std::atoi(socket_text);
  ::fcntl(socket, F_SETFD, FD_CLOEXEC);
  ::unsetenv(kHandOverSocketVariable);
  const std::vector<std::string> started_environment = environment_with({});
  warm_up(command);
  wire::Datagram datagram;
  HandedOverJob job;
  try {
    if (wire::receive_datagram(socket, -1, datagram) != wire::ReceiveStatus::received) std::_Exit(0);
    job = decode(datagram);
  } catch (const wire::WireError& error) {
    std::cerr << "rkt: error: the job handed to this process started ahead was malformed: " << error.what() << "\n";
    std::_Exit(2);
  }
  ::close(socket);
  const std::string difference = job.argv.size() < 2 || job.argv[1] != command
                                     ? "its command is not " + command
                                     : first_difference(outside_rkt(started_environment), outside_rkt(job.environment));
  apply(job);
  if (!difference.empty()) {
    // Its warm-up was for another start: the job is exec'd afresh, as it would have been.
    std::cerr << "rkt: note: a process started ahead was handed another start's job (" << difference
              << "); it starts afresh\n";
    std::vector<char*> arguments;
    for (std::string& argument : job.argv) arguments.push_back(argument.data());
    arguments.push_back(nullptr);
    ::execv(job.argv[0].c_str(), arguments.data());
    std::cerr << "rkt: error: could not start " << job.argv[0] << ": " << std::strerror(errno) << "\n";
    std::_Exit(127);
  }
  return job.argv;
}

}  // namespace rkt
