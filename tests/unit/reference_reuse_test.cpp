// The judge reuses a reference while the same drawn inputs come back unmodified
// (framework/cases/correctness_case.cpp, reference_results): gates that call a kernel several
// times pay for the float64 reference once, and an input changed in place is never judged
// against the reference of its old values. Below fp32 the honest kernels of a derived bound are
// computed only for an output past the class's floor, and then the verdict is the derived one.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <memory>

#include "framework/cases/correctness_case.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// y = function(x) over N = 64, counting the reference's runs.
struct CountingTask {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  TaskSpec task;
  CountingTask(const std::string& id, at::Tensor (*function)(const at::Tensor&))
      : task(id, __FILE__, __LINE__) {
    auto counter = calls;
    task.input("x", {"N"}, values::normal())
        .outputs({"y"})
        .default_dims({{"N", 64}})
        .small_dims({{"N", 64}})
        .reference([counter, function](const std::vector<at::Tensor>& in) {
          ++*counter;
          return std::vector<at::Tensor>{function(in[0])};
        });
  }
};

at::Tensor relu(const at::Tensor& x) { return at::relu(x); }

std::vector<at::Tensor> relu_of(const std::vector<at::Tensor>& inputs) {
  return {at::relu(inputs[0]).to(at::kFloat).contiguous()};
}

TEST(ReferenceReuse, TheSameUnmodifiedInputsPayForTheReferenceOnce) {
  CountingTask counting("counting_relu", relu);
  const KernelSpec kernel("counting_relu", "probe", {}, Device::cpu, __FILE__, __LINE__);
  std::vector<at::Tensor> inputs = generate_inputs(counting.task, {{"N", 64}}, 3);
  const auto signatures = infer_output_signatures(counting.task, inputs, Device::cpu);
  const int before = *counting.calls;
  for (int call = 0; call < 3; ++call) {
    EXPECT_EQ(judge_outputs(kernel, counting.task, "call", inputs, signatures, relu_of(inputs)).status,
              CaseStatus::passed);
  }
  EXPECT_EQ(*counting.calls - before, 1);
  // Equal values in another tensor are other inputs as far as the cache knows: computed again.
  const std::vector<at::Tensor> copies = {inputs[0].clone()};
  EXPECT_EQ(judge_outputs(kernel, counting.task, "copy", copies, signatures, relu_of(copies)).status,
            CaseStatus::passed);
  EXPECT_EQ(*counting.calls - before, 2);
  // Forgotten (a judge giving back its kept memory to another short of it): computed again.
  forget_cached_references();
  EXPECT_EQ(
      judge_outputs(kernel, counting.task, "again", inputs, signatures, relu_of(inputs)).status,
      CaseStatus::passed);
  EXPECT_EQ(*counting.calls - before, 3);
}

TEST(ReferenceReuse, AnInputChangedInPlaceIsJudgedOnItsNewValues) {
  CountingTask counting("counting_relu", relu);
  const KernelSpec kernel("counting_relu", "probe", {}, Device::cpu, __FILE__, __LINE__);
  std::vector<at::Tensor> inputs = generate_inputs(counting.task, {{"N", 64}}, 4);
  const auto signatures = infer_output_signatures(counting.task, inputs, Device::cpu);
  const std::vector<at::Tensor> old_outputs = relu_of(inputs);
  ASSERT_EQ(judge_outputs(kernel, counting.task, "before", inputs, signatures, old_outputs).status,
            CaseStatus::passed);
  inputs[0].mul_(-1);  // same tensor, same storage, new values (a replay gate's edit)
  // A memoizing kernel's answer (the old outputs) must now fail; the honest one passes.
  EXPECT_EQ(judge_outputs(kernel, counting.task, "stale", inputs, signatures, old_outputs).status,
            CaseStatus::failed);
  EXPECT_EQ(judge_outputs(kernel, counting.task, "after", inputs, signatures, relu_of(inputs)).status,
            CaseStatus::passed);
}

// exp(20 x): rounding x to TF32 (2^-11) moves the output by about 20 |x| 2^-11, a few percent at
// the largest x, far past TF32's floor of 1e-3: an honest TF32 kernel passes only by the bound
// derived from the honest kernels.
at::Tensor steep_exp(const at::Tensor& x) { return at::exp(x * 20); }

TEST(ReferenceReuse, HonestKernelsAreComputedOnlyForAnOutputPastTheFloor) {
  CountingTask steep("counting_steep_exp", steep_exp);
  KernelSpec kernel("counting_steep_exp", "probe", {}, Device::cpu, __FILE__, __LINE__);
  kernel.precision(Precision::tf32);
  int reference_runs = 0;  // by judge_outputs alone (signatures run it too, on meta tensors)
  const auto judge = [&](std::uint64_t seed, const auto& kernel_output) {
    const std::vector<at::Tensor> inputs = generate_inputs(steep.task, {{"N", 64}}, seed);
    const auto signatures = infer_output_signatures(steep.task, inputs, Device::cpu);
    const std::vector<at::Tensor> outputs = {kernel_output(inputs[0])};
    const int before = *steep.calls;
    const CaseOutcome outcome =
        judge_outputs(kernel, steep.task, "case", inputs, signatures, outputs);
    reference_runs = *steep.calls - before;
    return outcome;
  };
  // Exact outputs (computed in float64): within the floor, so no honest kernel is computed and
  // the reference runs once.
  std::size_t derivations = honest_sample_derivations();
  EXPECT_EQ(
      judge(5, [](const at::Tensor& x) { return at::exp(x.to(at::kDouble) * 20).to(at::kFloat); })
          .status,
      CaseStatus::passed);
  EXPECT_EQ(honest_sample_derivations(), derivations);
  EXPECT_EQ(reference_runs, 1);
  // An honest TF32 kernel (its input rounded to TF32): past the floor, within the derived bound.
  derivations = honest_sample_derivations();
  const CaseOutcome honest = judge(6, [](const at::Tensor& x) {
    return at::exp(round_to_precision(x, Precision::tf32) * 20).to(at::kFloat);
  });
  EXPECT_EQ(honest.status, CaseStatus::passed) << honest.message;
  EXPECT_EQ(honest_sample_derivations(), derivations + 1);
  EXPECT_GT(reference_runs, 1) << "the honest kernels run the reference in float32";
  // The control: the same kernel one class lower (bf16's 2^-8) is past the derived bound too.
  const CaseOutcome lower = judge(7, [](const at::Tensor& x) {
    return at::exp(round_to_precision(x, Precision::bf16) * 20).to(at::kFloat);
  });
  EXPECT_EQ(lower.status, CaseStatus::failed) << lower.message;
  EXPECT_EQ(honest_sample_derivations(), derivations + 2);
}

}  // namespace
}  // namespace rkt
