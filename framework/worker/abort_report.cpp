#include "framework/worker/abort_report.h"

#include <cxxabi.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

namespace rkt {
namespace {

std::atomic<const char*> current_step{"starting"};
std::atomic<bool> reported{false};

// Async-signal-safe output: write(2) only.
void say(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t written = ::write(STDERR_FILENO, text, left);
    if (written <= 0) return;
    text += written;
    left -= static_cast<std::size_t>(written);
  }
}

void print_stack() {
  constexpr int kMostFrames = 48;  // [frames]
  void* frames[kMostFrames];
  const int count = ::backtrace(frames, kMostFrames);
  say("rkt-worker: call stack (innermost first):\n");
  ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
}

void report(const char* what) {
  if (reported.exchange(true)) return;
  say("rkt-worker: ");
  say(what);
  say(" while ");
  say(current_step.load());
  say("\n");
  print_stack();
}

void on_terminate() {
  if (const std::type_info* type = abi::__cxa_current_exception_type(); type != nullptr) {
    report("std::terminate with an exception in flight");
    say("rkt-worker: the exception's type: ");
    say(type->name());
    say("\n");
  } else {
    report("std::terminate with no exception in flight");
  }
  std::abort();
}

void on_abort(int) {
  report("abort (SIGABRT)");
  ::signal(SIGABRT, SIG_DFL);
  ::raise(SIGABRT);
}

}  // namespace

void install_abort_report() {
  // The first backtrace() loads libgcc_s: now, while the file system is still there.
  void* frame = nullptr;
  ::backtrace(&frame, 1);
  std::set_terminate(on_terminate);
  struct sigaction action {};
  action.sa_handler = on_abort;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGABRT, &action, nullptr);
}

void set_worker_step(const char* step) { current_step.store(step); }

}  // namespace rkt
