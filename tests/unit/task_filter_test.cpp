// The task filter flags tasks built to trip each rule, and lets honest tasks through.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/task_filter.h"
#include "rkt/task.h"

namespace rkt {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// A small task y = f(x, w) with x{B,N} and w{N}.
TaskSpec task_with(const std::string& id, ReferenceFunction reference) {
  TaskSpec task(id, __FILE__, __LINE__);
  task.input("x", {"B", "N"}, values::normal())
      .weight("w", {"N"}, values::normal(1, 0.5))
      .outputs({"y"})
      .default_dims({{"B", 16}, {"N", 32}})
      .small_dims({{"B", 16}, {"N", 32}})
      .reference(std::move(reference));
  return task;
}

TEST(TaskFilter, FlagsAnOutputThatIsAlwaysZero) {
  const TaskVerdict verdict = judge_task(task_with("zero", [](const std::vector<at::Tensor>& in) {
    return std::vector{in[0] * 0};
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("output_range")));
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("trivial kernel: all zeros passes")));
}

TEST(TaskFilter, FlagsAnOutputThatIgnoresAnAxis) {
  const TaskVerdict verdict = judge_task(task_with("row_mean", [](const std::vector<at::Tensor>& in) {
    return std::vector{in[0].mean(1, /*keepdim=*/true).expand_as(in[0]).contiguous()};
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("output_axis: output 'y' is constant")));
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("along axis 1")));
}

TEST(TaskFilter, FlagsATaskThatIgnoresItsWeights) {
  const TaskVerdict verdict = judge_task(task_with("no_weights", [](const std::vector<at::Tensor>& in) {
    return std::vector{at::tanh(in[0]) + 0 * in[1]};
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("weight_impact")));
}

TEST(TaskFilter, FlagsATaskThatIgnoresItsData) {
  const TaskVerdict verdict = judge_task(task_with("no_data", [](const std::vector<at::Tensor>& in) {
    return std::vector{(in[1] + 0 * in[0]).contiguous()};
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("input_impact")));
}

TEST(TaskFilter, FlagsATaskAnInputReturnedUnchangedPasses) {
  const TaskVerdict verdict = judge_task(task_with("identity", [](const std::vector<at::Tensor>& in) {
    return std::vector{in[0] * (in[1].abs().sum() > -1)};
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("input 'x' returned unchanged passes")));
}

TEST(TaskFilter, FlagsATaskTheBf16ReferencePasses) {
  // A long mean of bf16-rounded values: the rounding averages away.
  TaskSpec task("long_mean", __FILE__, __LINE__);
  task.input("x", {"N"}, values::normal(5, 1))
      .outputs({"m"})
      .default_dims({{"N", 100000}})
      .small_dims({{"N", 100000}})
      .reference([](const std::vector<at::Tensor>& in) { return std::vector{in[0].mean()}; });
  const TaskVerdict verdict = judge_task(task);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("the reference computed in bf16 passes")));
}

TEST(TaskFilter, PassesTheHonestCoreTasks) {
  for (const char* id : {"relu", "sum_dim", "softmax", "layernorm", "rmsnorm", "matmul", "conv2d"}) {
    const TaskSpec* task = find_task(id);
    ASSERT_NE(task, nullptr) << id;
    const TaskVerdict verdict = judge_task(*task);
    EXPECT_FALSE(verdict.flagged) << id << ": " << ::testing::PrintToString(verdict.reasons);
  }
}

TEST(TaskFilter, FlagsTheMeanCrossEntropyAtX001) {
  // Documented in tasks/core_tasks.cpp: at x0.01 the loss is about log(C) for any logits.
  const TaskVerdict verdict = judge_task(*find_task("cross_entropy"));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("on distribution x0_01")));
}

TEST(TaskFilter, NamesAReferenceThatThrows) {
  const TaskVerdict verdict = judge_task(task_with("broken", [](const std::vector<at::Tensor>& in) {
    return std::vector{at::matmul(in[0], in[0])};  // [16,32] x [16,32]: shapes do not match
  }));
  EXPECT_TRUE(verdict.flagged);
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("the reference could not be evaluated")));
}

}  // namespace
}  // namespace rkt
