// The judge reuses a reference while the same drawn inputs come back unmodified
// (framework/cases/correctness_case.cpp, reference_results): gates that call a kernel several
// times pay for the float64 reference once, and an input changed in place is never judged
// against the reference of its old values.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <memory>

#include "framework/cases/correctness_case.h"
#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

struct CountingTask {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  TaskSpec task{"counting_relu", __FILE__, __LINE__};
  CountingTask() {
    auto counter = calls;
    task.input("x", {"N"}, values::normal())
        .outputs({"y"})
        .default_dims({{"N", 64}})
        .small_dims({{"N", 64}})
        .reference([counter](const std::vector<at::Tensor>& in) {
          ++*counter;
          return std::vector<at::Tensor>{at::relu(in[0])};
        });
  }
};

std::vector<at::Tensor> relu_of(const std::vector<at::Tensor>& inputs) {
  return {at::relu(inputs[0]).to(at::kFloat).contiguous()};
}

TEST(ReferenceReuse, TheSameUnmodifiedInputsPayForTheReferenceOnce) {
  CountingTask counting;
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
}

TEST(ReferenceReuse, AnInputChangedInPlaceIsJudgedOnItsNewValues) {
  CountingTask counting;
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

}  // namespace
}  // namespace rkt
