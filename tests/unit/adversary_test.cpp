// Runs the adversarial kernels (tests/adversaries) under supervision, as `rkt test` does, and
// checks that each is caught in the right case with a message that says why, and that honest
// results are never lost when a kernel crashes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "adversary_support.h"
#include "framework/runtime/device_support.h"
#include "framework/supervision/supervisor.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using ::testing::HasSubstr;

using testing::case_message;
using testing::expect_case_status;

std::map<std::string, CaseRecord> run_cases(const std::string& filter, int timeout_seconds = 60,
                                            const std::string& seed = "") {
  return testing::run_adversary_cases(filter, timeout_seconds, seed);
}

void expect_status(const std::map<std::string, CaseRecord>& cases, const std::string& name,
                   const std::string& status) {
  expect_case_status(cases, name, status);
}

// The message of `kernel`'s case `failing`, run beside its correctness_x1: that one must pass
// (the kernel is honest where the case does not reach) and `failing` must fail.
std::string failure_beside_a_pass(const std::string& kernel, const std::string& failing) {
  const auto cases = run_cases(kernel + ".correctness_x1:" + kernel + "." + failing);
  expect_status(cases, kernel + ".correctness_x1", "passed");
  expect_status(cases, kernel + "." + failing, "failed");
  const auto found = cases.find(kernel + "." + failing);
  return found == cases.end() ? "" : found->second.message;
}

TEST(BrittleKernels, IdentityReluFailsWhereverInputsAreNegative) {
  const auto cases = run_cases("relu/brittle_identity.*");
  for (const char* scaling : {"x1", "x3", "x0_01", "negated"}) {
    expect_status(cases, std::string("relu/brittle_identity.correctness_") + scaling, "failed");
  }
  expect_status(cases, "relu/brittle_identity.property_scale", "failed");
  const std::string& message = cases.at("relu/brittle_identity.correctness_negated").message;
  EXPECT_THAT(message, HasSubstr("distribution negated (scale -1)"));
  EXPECT_THAT(message, HasSubstr("outside atol"));
}

TEST(BrittleKernels, HalfPrecisionSoftmaxOverflowsAtX3) {
  // Whether x3 overflows half depends on the largest draws (about 70% of seeds have an element
  // above 3.7, where exp(3x) passes 65504); RKT_SEED=1 is one of them, on every machine, since
  // inputs are drawn on the CPU from the seed.
  const auto cases = run_cases("softmax/brittle_half_exp.correctness_*", 60, "1");
  expect_status(cases, "softmax/brittle_half_exp.correctness_x1", "passed");
  expect_status(cases, "softmax/brittle_half_exp.correctness_x3", "failed");
  // How the overflow shows depends on the compiler's _Float16 arithmetic: Inf/NaN (g++ 12) or
  // zeros from dividing by an infinite sum (g++ 13, seen on the H200 machine).
  EXPECT_THAT(cases.at("softmax/brittle_half_exp.correctness_x3").message,
              HasSubstr("distribution x3 (scale 3)"));
  EXPECT_THAT(cases.at("softmax/brittle_half_exp.correctness_x3").message,
              HasSubstr("[claims fp16]"));
}

TEST(BrittleKernels, FixedEpsilonBreaksAtX001) {
  const auto cases = run_cases("rmsnorm/brittle_fixed_epsilon.correctness_*");
  expect_status(cases, "rmsnorm/brittle_fixed_epsilon.correctness_x1", "passed");
  expect_status(cases, "rmsnorm/brittle_fixed_epsilon.correctness_x3", "passed");
  expect_status(cases, "rmsnorm/brittle_fixed_epsilon.correctness_negated", "passed");
  expect_status(cases, "rmsnorm/brittle_fixed_epsilon.correctness_x0_01", "failed");
  EXPECT_THAT(cases.at("rmsnorm/brittle_fixed_epsilon.correctness_x0_01").message,
              HasSubstr("relative error norm"));
}

TEST(BrittleKernels, ShapeGuardPassesTheFixedShapeAndFailsTheShapeProperty) {
  const auto cases = run_cases("softmax/brittle_shape_guard.*");
  for (const char* scaling : {"x1", "x3", "x0_01", "negated"}) {
    expect_status(cases, std::string("softmax/brittle_shape_guard.correctness_") + scaling,
                  "passed");
  }
  expect_status(cases, "softmax/brittle_shape_guard.property_shapes", "failed");
}

TEST(BrittleKernels, DropoutWithItsOwnMaskOrNoMaskFails) {
  const auto cases = run_cases("dropout/draws_own_mask.correctness_*:dropout/ignores_mask.correctness_*");
  for (const char* kernel : {"draws_own_mask", "ignores_mask"}) {
    for (const char* scaling : {"x1", "x3", "x0_01", "negated"}) {
      expect_status(cases, std::string("dropout/") + kernel + ".correctness_" + scaling, "failed");
    }
  }
}

TEST(BrittleKernels, SkippingTheAffineStepFailsTheRandomInitConfig) {
  // robust-kbench's own init (weight ones, bias zeros) cannot see the cheat; the second config can.
  const auto cases = run_cases("rkb_layernorm/without_affine.correctness_x1");
  expect_status(cases, "rkb_layernorm/without_affine.correctness_x1", "failed");
  EXPECT_THAT(case_message(cases, "rkb_layernorm/without_affine.correctness_x1"),
              HasSubstr("config init=random"));
}

TEST(BrittleKernels, BackwardKernelMustProduceEveryInputGradient) {
  const auto cases = run_cases("rkb_mnist_linear_backward/without_grad_x.correctness_x1");
  expect_status(cases, "rkb_mnist_linear_backward/without_grad_x.correctness_x1", "failed");
  EXPECT_THAT(case_message(cases, "rkb_mnist_linear_backward/without_grad_x.correctness_x1"),
              HasSubstr("output 'grad_x'"));
}

TEST(BrittleKernels, MultipleOf32KernelShrinksToASmallFailingShape) {
  const auto cases = run_cases("sum_dim/brittle_multiple_of_32.*");
  expect_status(cases, "sum_dim/brittle_multiple_of_32.correctness_x1", "passed");
  expect_status(cases, "sum_dim/brittle_multiple_of_32.property_shapes", "failed");
  const std::string& message = cases.at("sum_dim/brittle_multiple_of_32.property_shapes").message;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(message, match, std::regex("dim N = ([0-9]+)"))) << message;
  const int n = std::stoi(match[1]);
  EXPECT_LE(n, 64) << "rapidcheck should shrink to a small failing N";
  EXPECT_NE(n % 32, 0);
  EXPECT_THAT(message, HasSubstr("RC_PARAMS=\""));
  EXPECT_THAT(message, HasSubstr("reproduce="));
}

TEST(EdgeKernels, EachEdgeBugIsCaughtByTheShapePropertyAndTheControlPasses) {
  // tools/property_detection measures the rate over 100 seeds; here one seed, end to end.
  const auto cases = run_cases("softmax/edge_*.property_shapes", 120, "1");
  for (const char* kernel : {"edge_below_512", "edge_not_multiple_of_4", "edge_equals_1",
                             "edge_odd", "edge_not_multiple_of_32", "edge_above_1_5x_test",
                             "edge_from_1024", "edge_from_4096"}) {
    expect_status(cases, std::string("softmax/") + kernel + ".property_shapes", "failed");
    const CaseRecord& record = cases.at(std::string("softmax/") + kernel + ".property_shapes");
    EXPECT_TRUE(record.details.known) << kernel;
    EXPECT_THAT(record.details.reproduce, HasSubstr("RC_PARAMS=")) << kernel;
  }
  expect_status(cases, "softmax/edge_honest.property_shapes", "passed");
  // Shrinking finds the smallest failing row length.
  EXPECT_EQ(cases.at("softmax/edge_equals_1.property_shapes").details.dims.at("N"), 1);
  EXPECT_EQ(cases.at("softmax/edge_odd.property_shapes").details.dims.at("N"), 1);
  EXPECT_EQ(cases.at("softmax/edge_above_1_5x_test.property_shapes").details.dims.at("N"), 451);
}

TEST(ValueFamilyKernels, OnePassVarianceFailsTheOffsetFamilyAndWelfordPasses) {
  const auto cases = run_cases(
      "layernorm/one_pass_variance.correctness_x1:layernorm/one_pass_variance.values_*:"
      "layernorm/welford.correctness_*:layernorm/welford.values_*:layernorm/welford.property_*",
      120, "1");
  // Centred normal inputs cannot see the cancellation; rows offset from zero can.
  expect_status(cases, "layernorm/one_pass_variance.correctness_x1", "passed");
  expect_status(cases, "layernorm/one_pass_variance.values_offset", "failed");
  EXPECT_THAT(case_message(cases, "layernorm/one_pass_variance.values_offset"),
              HasSubstr("distribution values offset"));
  for (const char* name : {"correctness_x1", "correctness_x3", "correctness_x0_01",
                           "correctness_negated", "values_offset", "values_mixed_magnitudes",
                           "values_ties", "property_shapes", "property_scale"}) {
    expect_status(cases, std::string("layernorm/welford.") + name, "passed");
  }
}

TEST(PrecisionKernels, HonestTf32LoopPassesItsClassAndBf16ClaimingTf32Fails) {
  // The kernel: inputs rounded to TF32, summed one by one in float32. It failed the old
  // fixed tf32 bound at M=33 K=70 N=45 (the CPU test size); the derived bound passes it and still
  // fails the same loop on bf16-rounded inputs.
  const auto cases = run_cases("matmul/tf32_loop.*:matmul/bf16_claims_tf32.correctness_*", 120, "1");
  for (const char* name : {"correctness_x1", "correctness_x3", "correctness_x0_01",
                           "correctness_negated", "property_shapes", "property_scale"}) {
    expect_status(cases, std::string("matmul/tf32_loop.") + name, "passed");
  }
  for (const char* name : {"correctness_x1", "correctness_x3", "correctness_x0_01",
                           "correctness_negated"}) {
    expect_status(cases, std::string("matmul/bf16_claims_tf32.") + name, "failed");
  }
}

TEST(RelationCases, AFixedEpsilonFailsTheScaleRelationWithoutAReferenceAndHonestKernelsPass) {
  // RKT_SEED=2 draws a = 1/4 for rmsnorm's scale relation (the message says which a): the extra
  // 1e-5 in mean(x^2) then moves rmsnorm(x / 4) by 8e-5 against rmsnorm(x). The draw is fixed by
  // the seed, so this is deterministic; other seeds draw a = 2 or 4, where the shortcut hides.
  const auto cases = run_cases(
      "rmsnorm/brittle_fixed_epsilon.relation_scale:softmax/edge_honest.relation_shift:"
      "layernorm/welford.relation_affine:matmul/tf32_loop.relation_bilinear:"
      "sum_dim/brittle_multiple_of_32.relation_permute_rows",
      120, "2");
  expect_status(cases, "rmsnorm/brittle_fixed_epsilon.relation_scale", "failed");
  EXPECT_THAT(case_message(cases, "rmsnorm/brittle_fixed_epsilon.relation_scale"),
              HasSubstr("a = 0.25"));
  for (const char* name : {"softmax/edge_honest.relation_shift", "layernorm/welford.relation_affine",
                           "matmul/tf32_loop.relation_bilinear",
                           "sum_dim/brittle_multiple_of_32.relation_permute_rows"}) {
    expect_status(cases, name, "passed");
  }
}

TEST(BoundsKernels, WritesOutsideABufferFailEveryCaseNamingTheBufferSideAndOffset) {
  const auto cases = run_cases(
      "relu/oob_writes_past_end.correctness_x1:relu/oob_writes_past_end.integrity_out_of_bounds:"
      "relu/oob_writes_before_start.correctness_x1:relu/oob_writes_before_start.property_shapes");
  expect_status(cases, "relu/oob_writes_past_end.correctness_x1", "failed");
  expect_status(cases, "relu/oob_writes_past_end.integrity_out_of_bounds", "failed");
  EXPECT_THAT(cases.at("relu/oob_writes_past_end.correctness_x1").message,
              HasSubstr("out-of-bounds write: the kernel changed 4 bytes after the end of output 'y' "
                        "(bytes +0 to +3 past its last byte)"));
  expect_status(cases, "relu/oob_writes_before_start.correctness_x1", "failed");
  EXPECT_THAT(cases.at("relu/oob_writes_before_start.correctness_x1").message,
              HasSubstr("4 bytes before the start of output 'y' (bytes -4 to -1 before its first byte)"));
  expect_status(cases, "relu/oob_writes_before_start.property_shapes", "failed");
}

TEST(BoundsKernels, AReadPastAnInputsEndIsNamedAndHonestKernelsPass) {
  const auto cases = run_cases(
      "relu/oob_reads_past_end.integrity_out_of_bounds:relu/oob_reads_past_end.correctness_x1:"
      "relu/own_scratch.integrity_*:relu/aligned_sse_declared.integrity_*");
  // Inside the test's buffers the read lands in a redzone and the result is right...
  expect_status(cases, "relu/oob_reads_past_end.correctness_x1", "passed");
  // ...but an input ending where an inaccessible page begins shows it.
  expect_status(cases, "relu/oob_reads_past_end.integrity_out_of_bounds", "failed");
  EXPECT_THAT(cases.at("relu/oob_reads_past_end.integrity_out_of_bounds").message,
              HasSubstr("out-of-bounds read past input 'x': the kernel crashed (SIGSEGV)"));
  for (const char* gate : {"out_of_bounds", "misaligned_pointers", "replay", "input_mutation"}) {
    expect_status(cases, std::string("relu/own_scratch.integrity_") + gate, "passed");
    expect_status(cases, std::string("relu/aligned_sse_declared.integrity_") + gate, "passed");
  }
  EXPECT_THAT(cases.at("relu/aligned_sse_declared.integrity_misaligned_pointers").message,
              HasSubstr("offset by 16 bytes (the declared alignment)"));
}

TEST(BoundsKernels, UndeclaredAlignedLoadsFailTheMisalignedPointerCase) {
  const std::string message =
      failure_beside_a_pass("relu/aligned_sse_undeclared", "integrity_misaligned_pointers");
  EXPECT_THAT(message, HasSubstr("offset by one element (4 bytes"));
  EXPECT_THAT(message, HasSubstr("signal 11"));
  EXPECT_THAT(message, HasSubstr(".requires_alignment(bytes)"));
}

TEST(BoundsKernels, OnAGpuEachCudaAdversaryIsCaughtByItsCaseAndTheControlsPass) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
  const auto cases = run_cases(
      "relu/cuda_*.sanitizer_*:relu/cuda_float4_*.integrity_misaligned_pointers:"
      "relu/fault_one_past_end.correctness_x1:relu/cuda_own_scratch.*:relu/cuda_float4_declared.*",
      /*timeout_seconds=*/600);
  const std::vector<std::pair<std::string, std::string>> caught = {
      {"relu/fault_one_past_end.correctness_x1", "out-of-bounds write: the kernel changed 4 bytes after the end of output 'y'"},
      {"relu/cuda_reads_past_end.sanitizer_memcheck", "Invalid __global__ read"},
      // Reads past the end only when numel % 4 != 0: caught at the sanitizer's ragged dims.
      {"relu/cuda_float4_tail_overread.sanitizer_memcheck", "Invalid __global__ read"},
      {"relu/cuda_barrier_inside_bounds_check.sanitizer_synccheck", "compute-sanitizer synccheck found"},
      {"relu/cuda_syncwarp_mask_without_caller.sanitizer_synccheck", "compute-sanitizer synccheck found"},
      {"relu/cuda_shared_race.sanitizer_racecheck", "compute-sanitizer racecheck found"},
      {"relu/cuda_float4_undeclared.integrity_misaligned_pointers", "misaligned"},
  };
  for (const auto& [name, message] : caught) {
    expect_status(cases, name, "failed");
    if (cases.count(name)) {
      EXPECT_THAT(cases.at(name).message, HasSubstr(message)) << name;
    }
  }
  for (const auto& [name, record] : cases) {
    if (name.rfind("relu/cuda_own_scratch.", 0) == 0 || name.rfind("relu/cuda_float4_declared.", 0) == 0) {
      EXPECT_EQ(record.status, "passed") << name << ": " << record.message;
    }
  }
  // Blind spots measured on the H200 (docs/gpu_runs.md run 19; docs/threat_model.md): synccheck
  // reported neither a half-warp skipping a block barrier nor a shuffle naming exited lanes. If a
  // tool starts to catch them, this fails and the threat model is out of date.
  expect_status(cases, "relu/cuda_divergent_barrier.sanitizer_synccheck", "passed");
  expect_status(cases, "relu/cuda_shuffle_exited_lanes.sanitizer_synccheck", "passed");
  // initcheck is off by default (its worker never answered on the H200, runs 19 and 20): the
  // case says so instead of failing honest kernels at its timeout.
  expect_status(cases, "relu/cuda_reads_uninitialised.sanitizer_initcheck", "skipped");
  if (cases.count("relu/cuda_reads_uninitialised.sanitizer_initcheck")) {
    EXPECT_THAT(cases.at("relu/cuda_reads_uninitialised.sanitizer_initcheck").message,
                HasSubstr("RKT_SANITIZER_INITCHECK=1"));
  }
  // Each adversary is caught only where it cheats: the honest tools pass it.
  expect_status(cases, "relu/cuda_reads_past_end.sanitizer_racecheck", "passed");
  expect_status(cases, "relu/cuda_shared_race.sanitizer_memcheck", "passed");
}

TEST(ProcessCheats, EarlyExitsWithStatusZeroAreFailuresNotPasses) {
  for (const char* kernel : {"cheat_exit_zero", "cheat_quick_exit", "cheat_underscore_exit"}) {
    const std::string suite = std::string("relu/") + kernel;
    const auto cases = run_cases(suite + ".correctness_x1:" + suite + ".correctness_x3");
    // The worker ends; the judge fails the case and runs the next in a fresh worker.
    expect_status(cases, suite + ".correctness_x1", "failed");
    expect_status(cases, suite + ".correctness_x3", "failed");
    EXPECT_THAT(cases.at(suite + ".correctness_x1").message,
                HasSubstr("the worker process ended during the request; it exited with status 0"));
  }
}

TEST(ProcessCheats, ACrashIsRecordedAndEarlierResultsAreKept) {
  const auto cases = run_cases(
      "softmax/waives_borrowed_gate.correctness_x1:relu/cheat_segfaults.correctness_x1:"
      "relu/cheat_segfaults.correctness_x3");
  expect_status(cases, "softmax/waives_borrowed_gate.correctness_x1", "passed");
  expect_status(cases, "relu/cheat_segfaults.correctness_x1", "failed");
  expect_status(cases, "relu/cheat_segfaults.correctness_x3", "failed");
  EXPECT_THAT(cases.at("relu/cheat_segfaults.correctness_x1").message, HasSubstr("signal 11"));
}

// A kernel that kills its worker in every case: after kWorkerLossCasesBeforeSkipping failed cases
// the others are skipped, naming them, and it fails; one that kills it in one case only (at large
// sizes, in the shape property) has every case run.
TEST(ProcessCheats, AfterThreeCasesThatLostTheWorkerTheOthersAreSkipped) {
  const auto cases = run_cases("relu/cheat_segfaults.*:relu/crashes_on_large_inputs.*", 120);
  int failed = 0, skipped = 0, other_kernel_skips = 0;
  for (const auto& [name, record] : cases) {
    if (name.rfind("relu/crashes_on_large_inputs.", 0) == 0) {
      other_kernel_skips += record.message.find("lost its worker") != std::string::npos;
      continue;
    }
    if (record.status == "failed") {
      ++failed;
      EXPECT_THAT(record.message, HasSubstr("signal 11")) << name;
    } else {
      ++skipped;
      EXPECT_EQ(record.status, "skipped") << name;
      EXPECT_THAT(record.message,
                  HasSubstr("not run: the kernel lost its worker (it died, or its CUDA context was "
                            "lost) in 3 cases (correctness_x1, correctness_x3, correctness_x0_01)"))
          << name;
    }
  }
  EXPECT_EQ(failed, defaults::kWorkerLossCasesBeforeSkipping);
  EXPECT_GT(skipped, 10);
  EXPECT_EQ(other_kernel_skips, 0);
  expect_status(cases, "relu/crashes_on_large_inputs.property_shapes", "failed");
  expect_status(cases, "relu/crashes_on_large_inputs.correctness_x1", "passed");
}

// Each shrink candidate past the crash size costs a worker: shrinking stops after
// kShrinkingWorkerLossLimit more were lost, says so, and still names a failing trial.
TEST(ProcessCheats, ShrinkingACrashStopsAfterTheWorkerLossLimit) {
  const std::string message =
      failure_beside_a_pass("relu/crashes_on_large_inputs", "property_shapes");
  EXPECT_THAT(message, HasSubstr("smallest failing case found before shrinking stopped (" +
                                 std::to_string(defaults::kShrinkingWorkerLossLimit) +
                                 " more workers were lost to the kernel while shrinking;"));
  EXPECT_THAT(message, HasSubstr("signal 11"));
  EXPECT_THAT(message, HasSubstr("replay it with: RC_PARAMS="));
}

TEST(ProcessCheats, AThrowingKernelFailsWithItsMessage) {
  const auto cases = run_cases("relu/cheat_throws.correctness_x1");
  expect_status(cases, "relu/cheat_throws.correctness_x1", "failed");
  EXPECT_THAT(cases.at("relu/cheat_throws.correctness_x1").message,
              HasSubstr("the kernel threw: kernel gave up"));
}

TEST(ProcessCheats, AHangingKernelIsKilledAfterTheTimeout) {
  const auto cases = run_cases("relu/cheat_hangs.correctness_x1", /*timeout_seconds=*/2);
  expect_status(cases, "relu/cheat_hangs.correctness_x1", "crashed");
  EXPECT_THAT(cases.at("relu/cheat_hangs.correctness_x1").message, HasSubstr("hang"));
}

// The case limit is 60 s; the kernel's earlier calls (about a millisecond) bound the hanging one
// by the floor, kHungCallFloorSeconds (framework/isolation/hung_call_limit.h).
TEST(ProcessCheats, AKernelThatHangsAfterReturningIsStoppedByItsEarlierCallsBound) {
  const auto cases = run_cases("relu/cheat_small_values_hang.correctness_*", 60);
  expect_status(cases, "relu/cheat_small_values_hang.correctness_x1", "passed");
  expect_status(cases, "relu/cheat_small_values_hang.correctness_x0_01", "failed");
  const std::string& hung = case_message(cases, "relu/cheat_small_values_hang.correctness_x0_01");
  EXPECT_THAT(hung, HasSubstr("did not answer within " +
                              std::to_string(defaults::kHungCallFloorSeconds) + " s (hung)"));
  EXPECT_THAT(hung,
              HasSubstr("the call's limit was " + std::to_string(defaults::kHungCallFloorSeconds) +
                        " s: 1000x its earlier call"));
  // The case after it (negated runs after x0_01) is not run, naming the hang (worker_hangs.h).
  expect_status(cases, "relu/cheat_small_values_hang.correctness_negated", "skipped");
  EXPECT_THAT(case_message(cases, "relu/cheat_small_values_hang.correctness_negated"),
              HasSubstr("not run: correctness_x0_01 hung after " +
                        std::to_string(defaults::kHungCallFloorSeconds) + " s"));
}

}  // namespace
}  // namespace rkt
