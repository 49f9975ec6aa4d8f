// Registration errors are clear, and malformed tasks are named.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/registry/registry_validation.h"
#include "rkt/kernel.h"
#include "rkt/task.h"

namespace {

void does_nothing(rkt::KernelCall&) {}

}  // namespace

// A typo in the task id: the registry must say so, and suggest the right one.
ROBUST_KERNEL_TEST(sofmax, typo_in_task_id, does_nothing);
// A waiver must say why.
ROBUST_KERNEL_TEST(relu, waiver_without_reason, does_nothing)
    .waive_gate(rkt::IntegrityGate::replay, "");

namespace rkt {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(Registry, NamesAnUnknownTaskAndSuggestsTheClosest) {
  const std::vector<std::string> errors = registry_errors();
  EXPECT_THAT(errors, Contains(HasSubstr("kernel 'typo_in_task_id'")));
  EXPECT_THAT(errors, Contains(HasSubstr("unknown task 'sofmax'; did you mean 'softmax'?")));
}

TEST(Registry, RejectsAWaiverWithoutAReason) {
  EXPECT_THAT(registry_errors(),
              Contains(HasSubstr("kernel 'relu/waiver_without_reason' (")));
  EXPECT_THAT(registry_errors(), Contains(HasSubstr("waives gate 'replay' without a reason")));
}

TEST(Registry, FindsTheCoreTasks) {
  for (const char* id : {"relu", "sum_dim", "softmax", "layernorm", "rmsnorm", "matmul", "conv2d",
                         "cross_entropy"}) {
    EXPECT_NE(find_task(id), nullptr) << id;
  }
}

TEST(TaskValidation, RejectsATaskWithoutAReference) {
  TaskSpec task("broken", __FILE__, __LINE__);
  task.input("x", {"N"}, values::normal()).outputs({"y"}).default_dims({{"N", 4}}).small_dims({{"N", 2}});
  EXPECT_THROW(
      {
        try {
          task.validate();
        } catch (const std::invalid_argument& error) {
          EXPECT_THAT(error.what(), HasSubstr("no reference"));
          throw;
        }
      },
      std::invalid_argument);
}

TEST(TaskValidation, RejectsAnUndefinedDim) {
  TaskSpec task("broken", __FILE__, __LINE__);
  task.input("x", {"B", "N"}, values::normal())
      .outputs({"y"})
      .default_dims({{"N", 4}})
      .small_dims({{"N", 2}})
      .reference([](const std::vector<at::Tensor>& in) { return in; });
  try {
    task.validate();
    FAIL() << "validate() accepted an undefined dim";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("dim 'B' that default_dims does not define"));
  }
}

TEST(TaskValidation, RejectsAWidenedToleranceWithoutAReason) {
  TaskSpec task("broken", __FILE__, __LINE__);
  task.input("x", {"N"}, values::normal())
      .outputs({"y"})
      .default_dims({{"N", 4}})
      .small_dims({{"N", 2}})
      .reference([](const std::vector<at::Tensor>& in) { return in; })
      .widen_tolerance(Precision::fp32, {1e-3, 1e-3, 1e-3}, "");
  try {
    task.validate();
    FAIL() << "validate() accepted a widening without a reason";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("widened without a reason"));
  }
}

TEST(TaskValidation, ReportsAWidenedToleranceAndItsReason) {
  TaskSpec task("long_sum", __FILE__, __LINE__);
  task.widen_tolerance(Precision::fp32, {1e-3, 1e-3, 1e-4}, "sums of 1e6 fp32 terms");
  EXPECT_EQ(task.tolerance(Precision::fp32).atol, 1e-3);
  EXPECT_EQ(task.tolerance_reason(Precision::fp32), "sums of 1e6 fp32 terms");
  EXPECT_EQ(task.tolerance(Precision::tf32).atol, default_tolerance(Precision::tf32).atol);
}

}  // namespace
}  // namespace rkt
