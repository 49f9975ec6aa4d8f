#include "framework/worker/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

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

// A BPF program: refuse the listed system calls with EPERM, signals only to this process.
std::vector<sock_filter> seccomp_program(pid_t self) {
  std::vector<sock_filter> program;
  const auto add = [&](sock_filter instruction) { program.push_back(instruction); };
  const sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  const sock_filter refuse = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  // Only x86-64 system calls: another ABI (x32, i386) would slip past the numbers below.
  add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
  add(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  add(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));  // x32 numbers
  add(refuse);
  const int refused[] = {SYS_ptrace,        SYS_process_vm_readv, SYS_process_vm_writev,
                         SYS_execve,        SYS_execveat,         SYS_socket,
                         SYS_connect,       SYS_unshare,          SYS_setns,
                         SYS_mount,         SYS_umount2,          SYS_chroot,
                         SYS_pivot_root,    SYS_bpf,              SYS_perf_event_open,
                         SYS_kexec_load,    SYS_init_module,      SYS_finit_module,
                         SYS_open_by_handle_at, SYS_pidfd_open,   SYS_pidfd_getfd,
                         SYS_pidfd_send_signal, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo,
                         SYS_keyctl,        SYS_add_key,          SYS_request_key};
  for (int number : refused) {
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(number), 0, 1));
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
  std::vector<sock_filter> program = seccomp_program(getpid());
  sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &filter) == 0) {
    holds.push_back(
        "seccomp filter (ptrace, process_vm_*, signals to others, exec, sockets, "
        "namespaces, processes of its own refused)");
  } else {
    missing.push_back(errno_text("seccomp"));
  }
  std::string text = "worker sandbox: ";
  for (std::size_t i = 0; i < holds.size(); ++i) text += (i ? ", " : "") + holds[i];
  for (const std::string& gap : missing) text += "; NOT APPLIED: " + gap;
  return text;
}

}  // namespace rkt
