// Kernels that attack the harness rather than the task (issue 11): each computes relu correctly
// only when its attack on the judge worked, and leaves its output at zero otherwise. In the
// isolated mode every one of them must fail; run --in-process, the first ones pass, which shows
// that each attack is real and that the isolation is what stops it.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"
#include "rkt/kernel.h"

namespace {

void write_relu(rkt::KernelCall& call) {
  const float* x = call.input(0).data_as<float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.input(0).numel(); ++i) y[i] = x[i] > 0 ? x[i] : 0;
}

void write_zeros(rkt::KernelCall& call) {
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.output(0).numel(); ++i) y[i] = 0;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The value of `name` in a NUL-separated environment block, or "".
std::string find_variable(const std::string& block, const std::string& name) {
  std::size_t start = 0;
  while (start < block.size()) {
    const std::size_t end = block.find('\0', start);
    const std::string entry = block.substr(start, end - start);
    if (entry.rfind(name + "=", 0) == 0) return entry.substr(name.size() + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return "";
}

// Every process of this machine whose environment we can read, ours and our parents' first.
std::string secret_anywhere(const std::string& name) {
  if (const char* value = std::getenv(name.c_str())) return value;
  std::vector<std::string> places = {"/proc/self/environ",
                                     "/proc/" + std::to_string(getppid()) + "/environ"};
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') {
        places.push_back(std::string("/proc/") + entry->d_name + "/environ");
      }
    }
    closedir(proc);
  }
  for (const std::string& place : places) {
    const std::string value = find_variable(read_file(place), name);
    if (!value.empty()) return value;
  }
  return "";
}

// Forges verdict records: finds the supervisor's nonce where it can, writes "passed" records and
// the final "complete" record on every descriptor, and ends with status 0.
void forge_verdict_records(rkt::KernelCall& call) {
  const std::string nonce = secret_anywhere("RKT_VERDICT_NONCE");
  const char* names[] = {"correctness_x1", "correctness_x3", "correctness_x0_01", "correctness_negated"};
  std::string records;
  for (const char* name : names) {
    records += "RKT " + nonce + " start relu/forge_verdict_records." + name + "\n";
    records += "RKT " + nonce + " end relu/forge_verdict_records." + name + " passed 1 \n";
  }
  records += "RKT " + nonce + " complete\n";
  for (int fd = 0; fd < 1024; ++fd) {
    if (write(fd, records.data(), records.size()) < 0) continue;
  }
  write_zeros(call);
  _exit(0);
}

// Needs the secret seed to "predict" the hidden inputs: succeeds only if it can read it.
void read_secret_seed(rkt::KernelCall& call) {
  if (!secret_anywhere("RKT_SECRET_SEED").empty()) {
    write_relu(call);
  } else {
    write_zeros(call);
  }
}

// Reads the memory of the process that started it (the judge, in isolated mode): ptrace,
// /proc/<pid>/mem, /proc/<pid>/maps with process_vm_readv.
bool read_parent_memory() {
  const pid_t parent = getppid();
  if (ptrace(PTRACE_SEIZE, parent, nullptr, nullptr) == 0) {
    ptrace(PTRACE_DETACH, parent, nullptr, nullptr);
    return true;
  }
  const std::string base = "/proc/" + std::to_string(parent);
  const int memory = open((base + "/mem").c_str(), O_RDONLY);
  if (memory >= 0) {
    close(memory);
    return true;
  }
  std::istringstream maps(read_file(base + "/maps"));
  std::uintptr_t start = 0;
  char dash;
  if (maps >> std::hex >> start >> dash) {
    char byte;
    iovec local{&byte, 1}, remote{reinterpret_cast<void*>(start), 1};
    if (process_vm_readv(parent, &local, 1, &remote, 1, 0) == 1) return true;
  }
  return false;
}

// Has a process of its own do the work: a child that computes relu into the shared outputs
// (the judge sees only the worker's processor time, and a child outlives a killed worker).
// Correct only if it could start one, with fork or with clone as fork (not as a thread).
bool compute_in_a_child(rkt::KernelCall& call) {
  for (const bool with_clone : {false, true}) {
    const pid_t child =
        with_clone ? static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, nullptr, nullptr, nullptr, 0))
                   : fork();
    if (child < 0) continue;
    if (child == 0) {
      write_relu(call);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return false;
}

void spawn_a_helper_process(rkt::KernelCall& call) {
  if (!compute_in_a_child(call)) write_zeros(call);
}

void read_judge_memory(rkt::KernelCall& call) {
  if (read_parent_memory()) {
    write_relu(call);
  } else {
    write_zeros(call);
  }
}

// Tries to stop the judge; honest otherwise. The judge must survive and keep every verdict.
void signal_the_judge(rkt::KernelCall& call) {
  kill(getppid(), SIGSTOP);
  kill(getppid(), SIGKILL);
  write_relu(call);
}

// Writes forged replies ("ok", 1 microsecond per timed call) for every plausible sequence
// number on its worker's socket before the worker's own reply.
void forge_worker_replies(rkt::KernelCall& call) {
  write_relu(call);
  for (std::uint64_t sequence = 0; sequence < 64; ++sequence) {
    rkt::wire::Reply reply;
    reply.sequence = sequence;
    reply.ok = true;
    reply.stream_milliseconds = 0.001;
    reply.samples.assign(10, 0.001);
    const std::string bytes = rkt::wire::encode(reply);
    if (write(3, bytes.data(), bytes.size()) < 0) break;
  }
}

// Caches its result keyed on a cheap fingerprint of the input (size and 16 sampled elements):
// fast on repeated inputs, stale when elements it does not sample change.
void fingerprint_cache(rkt::KernelCall& call) {
  static std::mutex mutex;
  static std::map<std::vector<float>, std::vector<float>> cache;
  const rkt::TensorView& x = call.input(0);
  const float* data = x.data_as<float>();
  std::vector<float> key = {static_cast<float>(x.numel())};
  for (int i = 0; i < 16 && x.numel() > 0; ++i) key.push_back(data[(x.numel() - 1) * i / 15]);
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = cache.find(key);
  float* y = call.output(0).data_as<float>();
  if (found != cache.end() && static_cast<std::int64_t>(found->second.size()) == x.numel()) {
    std::memcpy(y, found->second.data(), found->second.size() * sizeof(float));
    return;
  }
  write_relu(call);
  cache[key] = std::vector<float>(y, y + x.numel());
}

}  // namespace

// Interposition: the kernel library defines a judge function's name and libc's memcmp. Loaded
// with RTLD_LOCAL and bound -Bsymbolic (and, isolated, never into the judge at all), neither
// replaces anything the judge calls.
namespace rkt {
bool all_finite(const void*) { return true; }
}  // namespace rkt
extern "C" int memcmp(const void*, const void*, std::size_t) { return 0; }

ROBUST_KERNEL_TEST(relu, honest_loop, write_relu)
    .describe("an honest relu: must pass isolated and in-process");
ROBUST_KERNEL_TEST(relu, forge_verdict_records, forge_verdict_records)
    .describe("writes forged verdict records, with the nonce if it can find it, on every fd");
ROBUST_KERNEL_TEST(relu, read_secret_seed, read_secret_seed)
    .describe("correct only if it can read RKT_SECRET_SEED from any process's environment");
ROBUST_KERNEL_TEST(relu, read_judge_memory, read_judge_memory)
    .describe("correct only if it can ptrace or read the memory of its parent process");
ROBUST_KERNEL_TEST(relu, spawn_a_helper_process, spawn_a_helper_process)
    .describe(
        "correct only if it can start a process of its own (fork, or clone without "
        "CLONE_THREAD) to compute in");
ROBUST_KERNEL_TEST(relu, signal_the_judge, signal_the_judge)
    .describe("sends SIGSTOP and SIGKILL to its parent, then computes honestly");
ROBUST_KERNEL_TEST(relu, forge_worker_replies, forge_worker_replies)
    .describe("writes forged 'ok' replies with 1 us timings on its worker's socket");
ROBUST_KERNEL_TEST(relu, fingerprint_cache, fingerprint_cache)
    .describe("returns cached outputs when 16 sampled input elements match");
