// Faults stay with the kernel that caused them: a crash, a hang or a lost CUDA context fails that
// kernel's cases, a fresh worker (or judge process) runs the rest, and other kernels pass.
#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "adversary_support.h"
#include "framework/runtime/device_support.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using testing::case_message;
using testing::expect_case_status;
using testing::run_adversary_cases;

// Processes whose command line mentions `text` (a worker of the adversaries' kernel library).
int processes_mentioning(const std::string& text) {
  int count = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return -1;
  while (const dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/cmdline");
    std::string command((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (command.find("rkt-worker") != std::string::npos && command.find(text) != std::string::npos) {
      ++count;
    }
  }
  closedir(proc);
  return count;
}

TEST(FaultContainment, AWorkerDiesWithTheJudgeThatWasKilledForAHang) {
  const auto cases = run_adversary_cases("relu/cheat_hangs.correctness_x1", /*timeout_seconds=*/2);
  expect_case_status(cases, "relu/cheat_hangs.correctness_x1", "crashed");
  // The judge process was killed; its worker (still inside the hanging kernel) must follow.
  int left = 0;
  for (int waited = 0; waited < 600; ++waited) {  // up to a minute on a loaded machine
    left = processes_mentioning("rkt_adversaries_kernels");
    if (left == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, 0) << "a worker outlived the judge that was killed for a hang";
}

TEST(FaultContainment, AnIllegalAddressFailsOnlyTheFaultyKernel) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_adversary_cases(
      "relu/fault_illegal_address.correctness_x1:relu/fault_illegal_address.correctness_x3:"
      "relu/cuda_control.correctness_*");
  for (const char* name : {"relu/fault_illegal_address.correctness_x1",
                           "relu/fault_illegal_address.correctness_x3"}) {
    expect_case_status(cases, name, "failed");
    EXPECT_THAT(case_message(cases, name), HasSubstr("cudaErrorIllegalAddress"));
    EXPECT_THAT(case_message(cases, name), HasSubstr("the judge replaces the worker"));
  }
  for (const char* scaling : {"x1", "x3", "x0_01", "negated"}) {
    expect_case_status(cases, std::string("relu/cuda_control.correctness_") + scaling, "passed");
  }
}

TEST(FaultContainment, ACudaKernelThatNeverEndsIsStoppedAndTheRunGoesOn) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_adversary_cases(
      "relu/fault_spins_forever.correctness_x1:relu/cuda_control.correctness_x1",
      /*timeout_seconds=*/20);
  expect_case_status(cases, "relu/fault_spins_forever.correctness_x1", "crashed");
  EXPECT_THAT(case_message(cases, "relu/fault_spins_forever.correctness_x1"), HasSubstr("hang"));
  expect_case_status(cases, "relu/cuda_control.correctness_x1", "passed");
}

TEST(FaultContainment, WorkOnTheLegacyDefaultStreamIsEscapedWork) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_adversary_cases("relu/cheat_legacy_stream.integrity_escaped_work");
  expect_case_status(cases, "relu/cheat_legacy_stream.integrity_escaped_work", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_legacy_stream.integrity_escaped_work"),
              HasSubstr("escaped work"));
}

}  // namespace
}  // namespace rkt
