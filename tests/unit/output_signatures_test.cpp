// Output signatures (framework/isolation/output_signatures.h): a backward task's come from its
// forward inputs without running anything, and equal what its reference returns; any other
// task's reference runs once per shape.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <memory>

#include "framework/inputs/input_generation.h"
#include "framework/isolation/output_signatures.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

TEST(OutputSignatures, EveryBackwardTasksGradientsAreShapedAsItsReferenceReturnsThem) {
  int backward_tasks = 0;
  for (const TaskSpec* registered : registered_tasks()) {
    if (registered->forward_task_id().empty()) continue;
    ++backward_tasks;
    const TaskSpec& task = registered->configured(0);
    const std::vector<at::Tensor> inputs = generate_inputs(task, task.small_dims(), 5);
    const std::uint64_t runs_before = output_signature_reference_runs();
    const std::vector<OutputSignature> inferred = infer_output_signatures(task, inputs, Device::cpu);
    EXPECT_EQ(output_signature_reference_runs(), runs_before) << task.id() << ": nothing runs";
    const std::vector<at::Tensor> outputs = task.reference()(inputs);
    ASSERT_EQ(inferred.size(), outputs.size()) << task.id();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      EXPECT_EQ(inferred[i].sizes, outputs[i].sizes().vec()) << task.id() << " output " << i;
      EXPECT_EQ(inferred[i].dtype, outputs[i].scalar_type()) << task.id() << " output " << i;
    }
  }
  EXPECT_GE(backward_tasks, 4);
}

struct CountingTask {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  TaskSpec task;
  explicit CountingTask(int outputs = 1)
      : task(outputs == 1 ? "signature_counting_relu" : "signature_two_outputs", __FILE__, __LINE__) {
    auto counter = calls;
    task.input("x", {"N"}, values::normal())
        .outputs(outputs == 1 ? std::vector<std::string>{"y"} : std::vector<std::string>{"y", "z"})
        .default_dims({{"N", 64}})
        .small_dims({{"N", 64}})
        .reference([counter](const std::vector<at::Tensor>& in) {
          ++*counter;
          return std::vector<at::Tensor>{at::relu(in[0])};
        });
  }
};

TEST(OutputSignatures, AShapeSeenBeforeRunsNoReference) {
  CountingTask counting;
  const std::vector<at::Tensor> first = generate_inputs(counting.task, {{"N", 64}}, 1);
  const std::vector<at::Tensor> second = generate_inputs(counting.task, {{"N", 64}}, 2);
  const std::vector<at::Tensor> other = generate_inputs(counting.task, {{"N", 65}}, 3);
  EXPECT_EQ(infer_output_signatures(counting.task, first, Device::cpu)[0].sizes, std::vector<std::int64_t>{64});
  const int after_first = *counting.calls;
  EXPECT_GE(after_first, 1);
  EXPECT_EQ(infer_output_signatures(counting.task, second, Device::cpu)[0].sizes, std::vector<std::int64_t>{64});
  EXPECT_EQ(*counting.calls, after_first);
  EXPECT_EQ(infer_output_signatures(counting.task, other, Device::cpu)[0].sizes, std::vector<std::int64_t>{65});
  EXPECT_GT(*counting.calls, after_first);
}

TEST(OutputSignatures, AReferenceReturningTooFewOutputsIsAnErrorEveryTime) {
  CountingTask two(2);
  TaskSpec& task = two.task;
  const std::vector<at::Tensor> inputs = generate_inputs(task, {{"N", 64}}, 1);
  EXPECT_THROW(infer_output_signatures(task, inputs, Device::cpu), std::invalid_argument);
  EXPECT_THROW(infer_output_signatures(task, inputs, Device::cpu), std::invalid_argument);
}

}  // namespace
}  // namespace rkt
