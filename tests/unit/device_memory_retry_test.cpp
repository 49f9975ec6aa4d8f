// A case that failed for want of GPU memory while other judges shared the GPU is run once more
// with the GPU alone (framework/supervision/device_memory_retry.h); a property whose failure does
// not repeat says what its failing run said (framework/cases/property_cases.cpp). H100 run 46:
// four shards of the main job ran ten honest kernels out of memory, and their property failures
// read "no exceptions thrown". No GPU needed: the outcomes are given.
#include "framework/supervision/device_memory_retry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "framework/cases/property_cases.h"
#include "framework/isolation/device_memory_return.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

TEST(DeviceMemoryShortage, IsToldByCudasAndLibTorchsMessagesOnly) {
  // Messages of run 46's failures: the judge's shared buffer, LibTorch's reference, the kernel's
  // own scratch, the drawing of inputs.
  EXPECT_TRUE(ran_out_of_device_memory(
      "the kernel threw: cudaMalloc of a shared buffer failed: out of memory"));
  EXPECT_TRUE(
      ran_out_of_device_memory("the reference of task 'cross_entropy' threw: CUDA out of memory. "
                               "Tried to allocate 1000.00 MiB."));
  EXPECT_TRUE(
      ran_out_of_device_memory("cudaMallocAsync(&scratch.base, chunk_bytes + row_bytes, stream) "
                               "failed at rkb_layernorm.cu:431: out of memory"));
  EXPECT_TRUE(ran_out_of_device_memory(
      "could not prepare inputs: drawing inputs on the GPU: out of memory"));
  EXPECT_FALSE(ran_out_of_device_memory("output 0 differs from the reference at 12 elements"));
  EXPECT_FALSE(ran_out_of_device_memory("an illegal memory access was encountered"));
}

TEST(DeviceMemoryRetry, AFailureForWantOfMemoryRunsAgainAloneAndTheSecondRunDecides) {
  int runs = 0;
  const auto passes_alone = [&] {
    ++runs;
    return CaseOutcome{CaseStatus::passed, ""};
  };
  const CaseOutcome passed = run_again_alone_if_short_of_memory(
      {CaseStatus::failed,
       "the kernel threw: cudaMalloc of a shared buffer failed: out of memory\n"},
      passes_alone);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(passed.status, CaseStatus::passed);
  EXPECT_THAT(passed.message, HasSubstr("ran out of device memory (the kernel threw: cudaMalloc"));
  EXPECT_THAT(passed.message, HasSubstr("run again with the GPU alone"));

  // A kernel that feigns the shortage gains nothing: its second run fails as it would have.
  const CaseOutcome wrong = run_again_alone_if_short_of_memory(
      {CaseStatus::failed, "the kernel threw: out of memory"}, [] {
        return CaseOutcome{CaseStatus::failed, "output 0 differs from the reference"};
      });
  EXPECT_EQ(wrong.status, CaseStatus::failed);
  EXPECT_THAT(wrong.message, HasSubstr("output 0 differs from the reference"));
  EXPECT_THAT(wrong.message, HasSubstr("and failed so"));
  const CaseOutcome short_alone = run_again_alone_if_short_of_memory(
      {CaseStatus::failed, "the kernel threw: out of memory"}, [] {
        return CaseOutcome{CaseStatus::failed, "the kernel threw: out of memory"};
      });
  EXPECT_THAT(short_alone.message, HasSubstr("ran out of memory again"));
}

TEST(DeviceMemoryRetry, OtherOutcomesRunOnce) {
  int runs = 0;
  const auto counted = [&] {
    ++runs;
    return CaseOutcome{CaseStatus::passed, ""};
  };
  for (const CaseOutcome& first :
       {CaseOutcome{CaseStatus::passed, "out of memory in a summary"},
        CaseOutcome{CaseStatus::failed, "output 0 differs from the reference"},
        CaseOutcome{CaseStatus::skipped, "no GPU: out of memory is not the reason"}}) {
    const CaseOutcome outcome = run_again_alone_if_short_of_memory(first, counted);
    EXPECT_EQ(outcome.status, first.status);
    EXPECT_EQ(outcome.message, first.message);
  }
  EXPECT_EQ(runs, 0);
}

// A trial that fails once and passes when run again (another judge's memory, a race): rapidcheck
// describes its shrunk case by running it again, which passes; the message still says why the
// failing run failed.
TEST(PropertyMessages, AFailureThatDoesNotRepeatSaysWhatTheFailingRunSaid) {
  int trials = 0;
  const PropertyBody fails_once = [&](const PropertyPhase&, CaseDetails&, const TrialGate&) {
    const int value = *rc::gen::inRange(0, 100).as("value");
    (void)value;
    ++trials;
    if (trials == 3) {
      return CaseOutcome{CaseStatus::failed,
                         "the kernel threw: cudaMalloc of a shared buffer failed: out of memory"};
    }
    return CaseOutcome{CaseStatus::passed, ""};
  };
  PropertyOptions options;
  options.id = "flaky/cpu/property_shapes";
  options.seed = 7;
  PropertyPhase phase;
  phase.trials = 10;
  const CaseOutcome outcome = run_property_phases(options, {phase}, fails_once);
  ASSERT_EQ(outcome.status, CaseStatus::failed) << outcome.message;
  EXPECT_THAT(outcome.message, HasSubstr("passed when run again"));
  EXPECT_THAT(outcome.message, HasSubstr("its failing run said: the kernel threw: cudaMalloc"));
  EXPECT_THAT(outcome.message, ::testing::Not(HasSubstr("no exceptions thrown")));
  // ...so that a case failed this way is run again alone where the GPU was shared.
  EXPECT_TRUE(ran_out_of_device_memory(outcome.message));
}

}  // namespace
}  // namespace rkt
