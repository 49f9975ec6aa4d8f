// Each integrity gate catches the kernel built to beat it, names the trick, and lets honest
// kernels through (the shipped kernels run every gate in ctest's `integrity` label).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "adversary_support.h"
#include "framework/runtime/device_support.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;
using testing::case_message;
using testing::expect_case_status;
using testing::run_adversary_cases;

TEST(RecycledOutputGate, CatchesUninitialisedOutputsOnTheCpu) {
  const auto cases = run_adversary_cases("relu/cheat_uninitialised_output.integrity_*");
  expect_case_status(cases, "relu/cheat_uninitialised_output.integrity_recycled_output", "failed");
  const std::string message =
      case_message(cases, "relu/cheat_uninitialised_output.integrity_recycled_output");
  EXPECT_THAT(message, HasSubstr("unwritten or recycled output"));
  // In a worker the uninitialised tensor holds whatever the worker's allocator hands out (never
  // the reference: it is computed in the judge), so the values are wrong rather than NaN.
  EXPECT_THAT(message, ::testing::AnyOf(HasSubstr("NaN/Inf where the reference is finite"),
                                        HasSubstr("outside atol")));
}

TEST(RecycledOutputGate, CatchesAKernelThatWritesNothing) {
  const auto cases = run_adversary_cases("relu/cheat_writes_nothing.*");
  expect_case_status(cases, "relu/cheat_writes_nothing.correctness_x1", "failed");
  expect_case_status(cases, "relu/cheat_writes_nothing.integrity_recycled_output", "failed");
}

TEST(RecycledOutputGate, CatchesUninitialisedOutputsOnTheGpu) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases =
      run_adversary_cases("relu/cheat_uninitialised_output_cuda.integrity_recycled_output");
  expect_case_status(cases, "relu/cheat_uninitialised_output_cuda.integrity_recycled_output",
                     "failed");
}

TEST(InputMutationGate, CatchesAKernelThatZeroesItsInput) {
  const auto cases = run_adversary_cases("relu/cheat_zeroes_input.*");
  // The reference runs on fresh copies, so the answer itself is right ...
  expect_case_status(cases, "relu/cheat_zeroes_input.correctness_x1", "passed");
  // ... and only the gate sees the mutation.
  expect_case_status(cases, "relu/cheat_zeroes_input.integrity_input_mutation", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_zeroes_input.integrity_input_mutation"),
              HasSubstr("input mutation: the kernel modified input 'x'"));
}

TEST(ReplayGate, CatchesCachingByPointer) {
  const auto cases = run_adversary_cases("relu/cheat_memo_pointer.integrity_replay");
  expect_case_status(cases, "relu/cheat_memo_pointer.integrity_replay", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_memo_pointer.integrity_replay"),
              HasSubstr("replay or memoization (call 2: same input buffers, values changed in "
                        "place)"));
}

TEST(ReplayGate, CatchesWorkDoneOncePerBatchOfCalls) {
  const auto cases = run_adversary_cases("relu/cheat_every_third_call.integrity_replay");
  expect_case_status(cases, "relu/cheat_every_third_call.integrity_replay", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_every_third_call.integrity_replay"),
              HasSubstr("replay or memoization"));
}

TEST(BorrowedComputationGate, NamesTheBorrowedOperator) {
  const auto cases = run_adversary_cases("softmax/cheat_borrows_softmax.*");
  expect_case_status(cases, "softmax/cheat_borrows_softmax.correctness_x1", "passed");
  expect_case_status(cases, "softmax/cheat_borrows_softmax.integrity_borrowed_computation",
                     "failed");
  EXPECT_THAT(case_message(cases, "softmax/cheat_borrows_softmax.integrity_borrowed_computation"),
              HasSubstr("borrowed computation: the kernel dispatched ATen compute operators it "
                        "did not declare: aten::softmax (x1)"));
}

TEST(EscapedWorkGate, CatchesWorkFinishedOnAThreadAfterReturning) {
  const auto cases = run_adversary_cases("relu/cheat_late_thread.integrity_escaped_work");
  expect_case_status(cases, "relu/cheat_late_thread.integrity_escaped_work", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_late_thread.integrity_escaped_work"),
              HasSubstr("escaped work: output 'y' changed after the kernel returned"));
}

TEST(EscapedWorkGate, CatchesWorkLaunchedOnAnotherStream) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_adversary_cases("relu/cheat_own_stream.integrity_escaped_work");
  expect_case_status(cases, "relu/cheat_own_stream.integrity_escaped_work", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_own_stream.integrity_escaped_work"),
              HasSubstr("escaped work"));
}

// A 1 ms side kernel launched after correct outputs hides inside the host clock's bound (3 x the
// stream time + 1 ms); on the GPU's clock (CUPTI) it ends after the call and fails the gate.
TEST(EscapedWorkGate, CatchesShortSideWorkOnTheGpuClock) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const std::string name = "relu/cheat_side_work.integrity_escaped_work";
  const auto cases = run_adversary_cases(name);
  expect_case_status(cases, name, "failed");
  EXPECT_THAT(case_message(cases, name), HasSubstr("kernel"));
  EXPECT_THAT(case_message(cases, name), HasSubstr("ran off the stream it was given"));
  EXPECT_THAT(case_message(cases, name), HasSubstr("GPU clock"));
}

// Outputs final at return runs on every CUDA case, so the plain correctness case catches each
// form of late work; at relu's CUDA correctness size (8192 x 8192) the side work takes ~0.1 ms.
// `kernel`'s correctness_x1 fails as not final at return, with `message` in its message.
void expect_not_final_at_return(const std::string& kernel, const std::string& message) {
  const std::string name = kernel + ".correctness_x1";
  const auto cases = run_adversary_cases(name);
  expect_case_status(cases, name, "failed");
  EXPECT_THAT(case_message(cases, name), HasSubstr(message));
}

TEST(OutputsFinalAtReturn, CatchesWorkJoinedOnlyAtTheNextCall) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  expect_not_final_at_return("relu/late_join_next_call",
                             "outputs not final at return: output 'y' changed after the kernel returned");
}

TEST(OutputsFinalAtReturn, CatchesWorkBehindAHostFunction) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  expect_not_final_at_return("relu/late_host_function",
                             "outputs not final at return: output 'y' changed after the kernel returned");
}

TEST(OutputsFinalAtReturn, CatchesAPersistentKernelStillRunning) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  expect_not_final_at_return("relu/late_persistent_server",
                             "outputs not final at return: the device was still busy 5 s after");
}

TEST(OutputsFinalAtReturn, PassesAKernelThatJoinsItsStreamsBeforeReturning) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_adversary_cases("relu/two_streams_joined.*");
  for (const char* name :
       {"relu/two_streams_joined.correctness_x1", "relu/two_streams_joined.correctness_negated",
        "relu/two_streams_joined.integrity_escaped_work", "relu/two_streams_joined.integrity_replay"}) {
    expect_case_status(cases, name, "passed");
  }
}

TEST(DeterminismGate, CatchesDisagreeingCalls) {
  const auto cases = run_adversary_cases("relu/cheat_racy.integrity_determinism");
  expect_case_status(cases, "relu/cheat_racy.integrity_determinism", "failed");
  EXPECT_THAT(case_message(cases, "relu/cheat_racy.integrity_determinism"),
              HasSubstr("nondeterminism: call 2 on the same inputs disagrees with call 1"));
}

TEST(LowerPrecision, AKernelClaimingFp32ButComputingInBf16Fails) {
  const auto cases = run_adversary_cases("matmul/cheat_bf16_claims_fp32.correctness_*");
  for (const char* scaling : {"x1", "x3", "x0_01", "negated"}) {
    const std::string name = std::string("matmul/cheat_bf16_claims_fp32.correctness_") + scaling;
    expect_case_status(cases, name, "failed");
    EXPECT_THAT(case_message(cases, name), HasSubstr("[claims fp32]"));
  }
}

TEST(WaivedGates, AreSkippedWithTheirWrittenReason) {
  const auto cases = run_adversary_cases("softmax/waives_borrowed_gate.integrity_*");
  expect_case_status(cases, "softmax/waives_borrowed_gate.integrity_borrowed_computation",
                     "skipped");
  EXPECT_THAT(case_message(cases, "softmax/waives_borrowed_gate.integrity_borrowed_computation"),
              HasSubstr("gate waived by the kernel: wraps at::softmax to show a waiver"));
  expect_case_status(cases, "softmax/waives_borrowed_gate.integrity_replay", "passed");
}

}  // namespace
}  // namespace rkt
