// Kernels that attack the verdict rather than the arithmetic: they end the process early with a
// success status, print a fake gtest success, crash, throw or hang. None may ever pass.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include "rkt/kernel.h"

namespace {

void fake_success_then_exit(rkt::KernelCall&) {
  std::printf("[       OK ] relu/cheat_exit_zero.correctness_x1 (0 ms)\n[  PASSED  ] 6 tests.\n");
  std::fflush(stdout);
  std::exit(0);
}

void quick_exit_zero(rkt::KernelCall&) { std::quick_exit(0); }

void underscore_exit_zero(rkt::KernelCall&) { ::_exit(0); }

void throws(rkt::KernelCall&) { throw std::runtime_error("kernel gave up"); }

void segfaults(rkt::KernelCall&) { std::raise(SIGSEGV); }

void hangs(rkt::KernelCall&) {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cheat_exit_zero, fake_success_then_exit)
    .describe("prints a gtest success and calls exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_quick_exit, quick_exit_zero).describe("calls quick_exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_underscore_exit, underscore_exit_zero).describe("calls _exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_throws, throws).describe("throws");
ROBUST_KERNEL_TEST(relu, cheat_segfaults, segfaults).describe("raises SIGSEGV");
ROBUST_KERNEL_TEST(relu, cheat_hangs, hangs).describe("never returns");
