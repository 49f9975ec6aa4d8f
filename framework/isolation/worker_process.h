// The judge's handle on one worker process: started with a clean environment and one socket,
// asked one request at a time, killed when it hangs or breaks the protocol.
#pragma once

#include <memory>

#include <sys/types.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"

namespace rkt {

/// The worker crashed, hung, exited, or broke the protocol. The message says which and when;
/// the worker is gone and the next request starts a fresh one.
struct WorkerFailure : std::runtime_error {
  explicit WorkerFailure(const std::string& message, int signal = 0, int hung_after = 0)
      : std::runtime_error(message), signal_number(signal), hung_after_seconds(hung_after) {}
  /// The signal that ended the worker (SIGSEGV for a fault), or 0.
  int signal_number = 0;
  /// [s] The worker did not answer a request this long and was killed as hung; 0 otherwise.
  int hung_after_seconds = 0;
};

/// "0" starts every worker with LibTorch's calls loaded (`rkt-worker --with-libtorch`), as before
/// workers without LibTorch existed: to compare the two, or to set the light worker aside.
inline constexpr const char* kLightWorkerVariable = "RKT_LIGHT_WORKER";

/// Set to 1: every worker names each system call its sandbox refuses on standard error (it still
/// fails with EPERM): diagnosis, of a tool inside the worker or a kernel that needs such a call.
inline constexpr const char* kNameRefusedCallsVariable = "RKT_WORKER_NAME_REFUSED_CALLS";

/// Overrides kWorkerReplyTimeoutSeconds: a whole number of seconds, at least 1.
inline constexpr const char* kWorkerReplyTimeoutVariable = "RKT_WORKER_REPLY_TIMEOUT";

/// [s] How long a worker may take to answer a call before it is killed as hung:
/// RKT_WORKER_REPLY_TIMEOUT, or kWorkerReplyTimeoutSeconds when unset. Throws
/// std::invalid_argument naming the variable when it is set to anything but a positive whole
/// number.
int worker_reply_timeout_seconds();

struct WorkerLaunch {
  std::string executable;  ///< rkt-worker
  std::string library;     ///< The kernel library it loads.
  bool change_root = true; ///< false: --no-chroot (diagnosis only).
  bool seccomp = true;     ///< false: --no-seccomp (diagnosis only).
  /// --own-device-copies: CUDA calls on copies in the worker's own allocations, for memcheck
  /// (framework/worker/own_device_copies.h).
  bool own_device_copies = false;
  /// A program the worker runs under, with its arguments (compute-sanitizer for the sanitizer
  /// cases); the worker's own command line follows them. Empty: the worker runs directly.
  std::vector<std::string> wrapper;
};

/// A buffer to share with a request: the buffer and, for CPU buffers, its memfd.
struct SharedLocationRef {
  wire::SharedBuffer buffer;
  int fd = -1;
};

class WorkerProcess {
 public:
  /// Starts the worker and asks it to describe its kernels.
  explicit WorkerProcess(const WorkerLaunch& launch);
  /// Takes over a worker that a parent judge lent this process (its inherited socket `socket` and
  /// its process id): asks it to forget every buffer of the judges before and to describe its
  /// kernels, reading past whatever an earlier judge left on the socket. The worker stays the
  /// parent's child: this process closes its socket when done, and kills it when discarding it.
  /// Throws WorkerFailure.
  static std::unique_ptr<WorkerProcess> adopt(int socket, pid_t pid, int timeout_seconds);
  /// Starts a worker without waiting for it: only to be lent (its adopter's request is the first
  /// it answers, once loaded), so that its start overlaps other work. Throws WorkerFailure.
  static std::unique_ptr<WorkerProcess> launch_for_lending(const WorkerLaunch& launch);
  /// Starts a worker before its kernel library is known (`launch.library` is ignored): its exec
  /// and CUDA's start overlap the judge's own, and it loads nothing of a kernel (nor LibTorch,
  /// which only a library that needs it brings) until give_library names one. Throws
  /// WorkerFailure.
  static std::unique_ptr<WorkerProcess> launch_awaiting_library(const WorkerLaunch& launch);
  /// Names the library a worker from launch_awaiting_library loads, then asks it to describe its
  /// kernels as the constructor does: from here on it is the worker `WorkerProcess(launch)` with
  /// that library would have been. Throws WorkerFailure.
  void give_library(const std::string& library);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  const wire::DescribeReply& description() const { return description_; }

  /// Sends `request` (sharing the buffers it names that this worker has not mapped yet) and
  /// waits up to `timeout_seconds` for its reply. Throws WorkerFailure.
  wire::Reply ask(wire::Request request, const std::vector<SharedLocationRef>& buffers,
                  int timeout_seconds);

  bool adopted() const { return adopted_; }
  pid_t pid() const { return pid_; }
  /// Ends the worker at once (SIGKILL; a wrapper with everything it started), reaping it when it
  /// is this process's child.
  void kill_now();
  /// Whether this process's own worker child is still running (reaps it when not).
  bool running();
  /// Closes the socket, which ends a well-behaved worker, and waits up to `timeout_seconds` for
  /// the process to exit (killed after that). True when it exited by itself.
  bool finish(int timeout_seconds);
  /// A duplicate of the socket that survives execve: how a worker is lent to a child judge.
  int inheritable_socket() const;

  /// True when `buffer` is already mapped in this worker.
  bool has_mapped(std::uint64_t buffer) const { return mapped_.count(buffer) != 0; }

  /// [ms] The processor time the worker has used so far, all its threads (user and system, from
  /// /proc/<pid>/stat, in clock ticks); -1 when it cannot be read.
  double cpu_milliseconds() const;

  /// [ms] How long the worker's live threads have been runnable so far: on a processor or
  /// waiting in a run queue for one (the first two fields of /proc/<pid>/task/*/schedstat); -1
  /// when unreadable. On a loaded machine a spinning thread gets little processor time, but it
  /// is runnable all along: a thread that is idle is neither.
  double runnable_milliseconds() const;

 private:
  WorkerProcess() = default;
  void launch_process(const WorkerLaunch& launch);  ///< socketpair, fork and execve
  void describe_after_start();  ///< the first describe request, within the start-up timeout
  [[noreturn]] void fail(const std::string& what, int hung_after_seconds = 0);
  std::string how_it_ended();

  pid_t pid_ = -1;
  int socket_ = -1;
  bool adopted_ = false;
  int ended_by_signal_ = 0;  // set by how_it_ended()
  bool own_group_ = false;   // a wrapper's process group, killed whole
  std::uint64_t sequence_ = 0;
  std::set<std::uint64_t> mapped_;
  wire::DescribeReply description_;
};

}  // namespace rkt
