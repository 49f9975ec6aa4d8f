// The judge's handle on one worker process: started with a clean environment and one socket,
// asked one request at a time, killed when it hangs or breaks the protocol.
#pragma once

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
  using std::runtime_error::runtime_error;
};

struct WorkerLaunch {
  std::string executable;  ///< rkt-worker
  std::string library;     ///< The kernel library it loads.
  bool change_root = true; ///< false: --no-chroot (diagnosis only).
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
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  const wire::DescribeReply& description() const { return description_; }

  /// Sends `request` (sharing the buffers it names that this worker has not mapped yet) and
  /// waits up to `timeout_seconds` for its reply. Throws WorkerFailure.
  wire::Reply ask(wire::Request request, const std::vector<SharedLocationRef>& buffers,
                  int timeout_seconds);

  /// True when `buffer` is already mapped in this worker.
  bool has_mapped(std::uint64_t buffer) const { return mapped_.count(buffer) != 0; }

  /// [ms] The processor time the worker has used so far, all its threads (user and system, from
  /// /proc/<pid>/stat, in clock ticks); -1 when it cannot be read.
  double cpu_milliseconds() const;

 private:
  [[noreturn]] void fail(const std::string& what);
  std::string how_it_ended();

  pid_t pid_ = -1;
  int socket_ = -1;
  std::uint64_t sequence_ = 0;
  std::set<std::uint64_t> mapped_;
  wire::DescribeReply description_;
};

}  // namespace rkt
