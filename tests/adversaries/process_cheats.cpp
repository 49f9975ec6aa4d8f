// Kernels that attack the verdict rather than the arithmetic: they end the process early with a
// success status, print a fake gtest success, crash, throw or hang. None may ever pass.
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

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

// Honest below 20000 elements (relu's CPU test size is 37 x 300 = 11100), a crash at or above:
// a shape property's larger trials crash, and so does every shrink candidate still past it.
void crashes_on_large_inputs(rkt::KernelCall& call) {
  const std::int64_t n = call.output(0).numel();
  if (n >= 20000) std::raise(SIGSEGV);
  const float* x = call.input(0).data_as<const float>();
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < n; ++i) y[i] = (x[i] > 0.0f || x[i] != x[i]) ? x[i] : 0.0f;
}

void hangs(rkt::KernelCall&) {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// Honest while some input is at least 0.5 in magnitude; never returns when every one is below
// (the x0.01 case): a kernel that hangs on some inputs only, after calls that returned.
void hangs_on_small_values(rkt::KernelCall& call) {
  const std::int64_t n = call.output(0).numel();
  const float* x = call.input(0).data_as<const float>();
  bool small = true;
  for (std::int64_t i = 0; i < n && small; ++i) small = !(x[i] >= 0.5f || x[i] <= -0.5f);
  if (small) hangs(call);
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < n; ++i) y[i] = (x[i] > 0.0f || x[i] != x[i]) ? x[i] : 0.0f;
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cheat_exit_zero, fake_success_then_exit)
    .describe("prints a gtest success and calls exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_quick_exit, quick_exit_zero).describe("calls quick_exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_underscore_exit, underscore_exit_zero).describe("calls _exit(0)");
ROBUST_KERNEL_TEST(relu, cheat_throws, throws).describe("throws");
ROBUST_KERNEL_TEST(relu, cheat_segfaults, segfaults).describe("raises SIGSEGV");
ROBUST_KERNEL_TEST(relu, cheat_hangs, hangs).describe("never returns");
ROBUST_KERNEL_TEST(relu, cheat_small_values_hang, hangs_on_small_values)
    .describe("never returns when every input is below 0.5 in magnitude");
ROBUST_KERNEL_TEST(relu, crashes_on_large_inputs, crashes_on_large_inputs)
    .describe("raises SIGSEGV from 20000 elements on");
