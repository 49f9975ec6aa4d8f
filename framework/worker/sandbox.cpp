#include "framework/worker/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace rkt {
namespace {

constexpr uid_t kNobody = 65534;  // The unprivileged user and group a root worker becomes.

std::string errno_text(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  return static_cast<bool>(file.flush());
}

// chroot into an empty directory that no longer exists: nothing can be created in it, and no
// path (no /proc, no /dev, no hidden-suite file) resolves any more.
bool change_to_empty_root(std::string& why_not) {
  char path[] = "/tmp/rkt-worker-root-XXXXXX";
  if (mkdtemp(path) == nullptr) {
    why_not = errno_text("mkdtemp");
    return false;
  }
  const int directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  rmdir(path);
  if (directory < 0) {
    why_not = errno_text("open");
    return false;
  }
  const bool changed = fchdir(directory) == 0 && chroot(".") == 0 && chdir("/") == 0;
  if (!changed) why_not = errno_text("chroot");
  close(directory);
  return changed;
}

// Not root: an unprivileged user namespace gives the capability to chroot; the worker keeps its
// uid (mapped onto itself).
bool enter_user_namespace(std::string& why_not) {
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER) != 0) {
    why_not = errno_text("unshare(CLONE_NEWUSER)");
    return false;
  }
  write_file("/proc/self/setgroups", "deny");
  if (!write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") ||
      !write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n")) {
    why_not = "could not write the user namespace's id maps";
    return false;
  }
  return true;
}

// The system calls the filter refuses, with the names --name-refused-calls prints. Most are
// refused outright; the process and signal calls have rules of their own in seccomp_program
// (clone as a thread and signals to this process stay allowed).
struct RefusedCall {
  int number;
  const char* name;
  bool rule_of_its_own = false;
};
constexpr RefusedCall kRefusedCalls[] = {
    {SYS_ptrace, "ptrace"},
    {SYS_process_vm_readv, "process_vm_readv"},
    {SYS_process_vm_writev, "process_vm_writev"},
    {SYS_execve, "execve"},
    {SYS_execveat, "execveat"},
    {SYS_socket, "socket"},
    {SYS_connect, "connect"},
    {SYS_unshare, "unshare"},
    {SYS_setns, "setns"},
    {SYS_mount, "mount"},
    {SYS_umount2, "umount2"},
    {SYS_chroot, "chroot"},
    {SYS_pivot_root, "pivot_root"},
    {SYS_bpf, "bpf"},
    {SYS_perf_event_open, "perf_event_open"},
    {SYS_kexec_load, "kexec_load"},
    {SYS_init_module, "init_module"},
    {SYS_finit_module, "finit_module"},
    {SYS_open_by_handle_at, "open_by_handle_at"},
    {SYS_pidfd_open, "pidfd_open"},
    {SYS_pidfd_getfd, "pidfd_getfd"},
    {SYS_pidfd_send_signal, "pidfd_send_signal"},
    {SYS_rt_sigqueueinfo, "rt_sigqueueinfo"},
    {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo"},
    {SYS_keyctl, "keyctl"},
    {SYS_add_key, "add_key"},
    {SYS_request_key, "request_key"},
    {SYS_fork, "fork", true},
    {SYS_vfork, "vfork", true},
    {SYS_clone, "clone (as a new process)", true},
    {SYS_tkill, "tkill", true},
    {SYS_kill, "kill (of another process)", true},
    {SYS_tgkill, "tgkill (of another process)", true},
};

// Appends `text` to `line` at `length` (async-signal-safe: no allocation).
void append(char* line, std::size_t& length, std::size_t capacity, const char* text) {
  while (*text != '\0' && length + 1 < capacity) line[length++] = *text++;
}

void append_number(char* line, std::size_t& length, std::size_t capacity, long value) {
  char digits[24];
  int count = 0;
  unsigned long magnitude =
      value < 0 ? 0UL - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
  do {
    digits[count++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0 && count < 23);
  if (value < 0 && length + 1 < capacity) line[length++] = '-';
  while (count > 0 && length + 1 < capacity) line[length++] = digits[--count];
}

// --name-refused-calls: the filter traps a refused call instead of failing it; this handler
// fails it the same way (EPERM) and names it on standard error, once per call number.
std::atomic<bool> refused_call_named[512];

void name_refused_call(int, siginfo_t* info, void* context) {
  auto* machine = static_cast<ucontext_t*>(context);
  machine->uc_mcontext.gregs[REG_RAX] = -EPERM;
  const int number = info->si_syscall;
  if (number >= 0 && number < 512 && refused_call_named[number].exchange(true)) return;
  const char* name = "a system call";
  for (const RefusedCall& call : kRefusedCalls) {
    if (call.number == number) name = call.name;
  }
  char line[160];
  std::size_t length = 0;
  append(line, length, sizeof line, "rkt-worker: the sandbox refused ");
  append(line, length, sizeof line, name);
  append(line, length, sizeof line, " (system call ");
  append_number(line, length, sizeof line, number);
  append(line, length, sizeof line, ", thread ");
  append_number(line, length, sizeof line, static_cast<long>(syscall(SYS_gettid)));
  append(line, length, sizeof line, "): it failed with EPERM\n");
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, line, length);
}

// A BPF program: refuse the listed system calls with EPERM (or trap them, to be named and then
// failed with EPERM by name_refused_call), signals only to this process.
std::vector<sock_filter> seccomp_program(pid_t self, bool trap_refused) {
  std::vector<sock_filter> program;
  const auto add = [&](sock_filter instruction) { program.push_back(instruction); };
  const sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  const __u32 refusal =
      trap_refused ? SECCOMP_RET_TRAP : SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  const sock_filter refuse = BPF_STMT(BPF_RET | BPF_K, refusal);
  // Only x86-64 system calls: another ABI (x32, i386) would slip past the numbers below.
  add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  add(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  add(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));  // x32 numbers
  add(refuse);
  for (const RefusedCall& call : kRefusedCalls) {
    if (call.rule_of_its_own) continue;  // below
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(call.number), 0, 1));
    add(refuse);
  }
  // No process of its own: a child would escape the judge's watch of the worker (its processor
  // time is not the worker's), could keep running after the worker is killed, and would keep
  // every shared buffer it inherited mapped. Threads stay allowed: clone with CLONE_THREAD;
  // clone3, whose flags a filter cannot read, answers ENOSYS, and glibc then creates threads
  // with clone.
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fork, 0, 1));
  add(refuse);
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_vfork, 0, 1));
  add(refuse);
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  add(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));  // the flags' low word
  add(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
  add(allow);
  add(refuse);
  // kill(pid, sig) and tgkill(tgid, tid, sig): only this process (glibc's abort and raise use
  // them on itself). tkill(tid, sig) cannot name a process: refused.
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_tkill, 0, 1));
  add(refuse);
  for (int number : {SYS_kill, SYS_tgkill}) {
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(number), 0, 4));
    add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(self), 0, 1));
    add(allow);
    add(refuse);
  }
  add(allow);
  return program;
}

}  // namespace

std::string enter_worker_sandbox(const SandboxOptions& options) {
  std::vector<std::string> holds, missing;
  const pid_t judge = getppid();
  const bool root = geteuid() == 0;
  if (options.change_root) {
    std::string why_not;
    const bool may_chroot = root || enter_user_namespace(why_not);
    if (may_chroot && change_to_empty_root(why_not)) {
      holds.push_back("empty root directory");
    } else {
      missing.push_back("no empty root (" + why_not + "): files readable by the worker's user stay readable");
    }
  } else {
    missing.push_back("no empty root (--no-chroot)");
  }
  if (root) {
    if (setgroups(0, nullptr) == 0 && setgid(kNobody) == 0 && setuid(kNobody) == 0) {
      holds.push_back("user nobody (65534)");
    } else {
      missing.push_back("still root (" + errno_text("setuid") + ")");
    }

  } else {
    holds.push_back("unprivileged user " + std::to_string(getuid()) +
                    " (the judge is undumpable: its /proc files and memory are closed to it)");
  }
  // A new user (or user namespace) clears the parent-death signal set before execve: the worker
  // must still die with its judge.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != judge) _exit(127);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) {
    holds.push_back("no new privileges");
  } else {
    missing.push_back(errno_text("PR_SET_NO_NEW_PRIVS"));
  }
  if (!options.seccomp) {
    missing.push_back("no seccomp filter (--no-seccomp)");
  } else {
    if (options.name_refused_calls) {
      struct sigaction action {};
      action.sa_sigaction = name_refused_call;
      action.sa_flags = SA_SIGINFO;
      sigemptyset(&action.sa_mask);
      sigaction(SIGSYS, &action, nullptr);
    }
    std::vector<sock_filter> program = seccomp_program(getpid(), options.name_refused_calls);
    sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter) == 0) {
      holds.push_back(
          std::string("seccomp filter (ptrace, process_vm_*, signals to others, exec, sockets, "
                      "namespaces, processes of its own refused") +
          (options.name_refused_calls ? "; each refused call named on standard error)" : ")"));
    } else {
      missing.push_back(errno_text("seccomp"));
    }
  }
  std::string text = "worker sandbox: ";
  for (std::size_t i = 0; i < holds.size(); ++i) text += (i ? ", " : "") + holds[i];
  for (const std::string& gap : missing) text += "; NOT APPLIED: " + gap;
  return text;
}

}  // namespace rkt
