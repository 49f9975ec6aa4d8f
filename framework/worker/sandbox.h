// Contains a worker process before it runs any kernel: it keeps the descriptors, memory and
// devices it already holds and loses the means to reach anything else.
#pragma once

#include <string>

namespace rkt {

struct SandboxOptions {
  /// Move into an empty root directory (needs root or an unprivileged user namespace). Turned off
  /// only for diagnosis (`--no-chroot`): without it, files readable by the worker's user stay so.
  bool change_root = true;
  /// Install the seccomp filter. Turned off only for diagnosis (`--no-seccomp`: which of the
  /// sandbox's measures a tool running inside the worker, compute-sanitizer, trips over).
  bool seccomp = true;
  /// Diagnosis (`--name-refused-calls`): a refused system call still fails with EPERM, but the
  /// worker first writes its name on standard error, once per call. The filter then traps
  /// instead of failing the call itself; a thread that blocks SIGSYS is killed by such a call.
  bool name_refused_calls = false;
};

/// Applies every measure it can, in order: an empty root (chroot into a deleted directory), the
/// unprivileged user nobody (65534) when running as root, no new privileges, and a seccomp filter
/// that refuses ptrace, process_vm_readv/writev, signals to other processes, exec, new sockets
/// and new namespaces. Returns one line saying what holds and what could not be applied.
std::string enter_worker_sandbox(const SandboxOptions& options);

}  // namespace rkt
