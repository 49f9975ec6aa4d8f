// Task configs (cartesian axes) and backward tasks (autograd references) behave as documented in
// include/rkt/task.h.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "framework/baselines/backward_baseline.h"
#include "framework/cases/correctness_case.h"
#include "framework/cases/task_filter.h"
#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "rkt/defaults.h"
#include "rkt/task.h"

namespace rkt {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Tensors = std::vector<at::Tensor>;

// y{B,N} = x{B,K} @ w{N,K}^T, with a batch axis and an init axis.
TaskSpec linear_task() {
  TaskSpec task("linear_with_configs", __FILE__, __LINE__);
  task.input("x", {"B", "K"}, values::normal())
      .weight("w", {"N", "K"}, values::fan_in_uniform("K"))
      .outputs({"y"})
      .default_dims({{"B", 64}, {"K", 32}, {"N", 16}})
      .small_dims({{"B", 8}, {"K", 32}, {"N", 16}})
      .config_axis("batch", {{"64", {{"B", 64}}, {}}, {"4", {{"B", 4}}, {}}})
      .config_axis("init", {{"kaiming", {}, {}}, {"ones", {}, {{"w", values::constant(1)}}}})
      .reference([](const Tensors& in) { return Tensors{at::linear(in[0], in[1])}; });
  return task;
}

TEST(TaskConfigs, AreTheCartesianProductInDeclarationOrder) {
  const TaskSpec task = linear_task();
  std::vector<std::string> names;
  for (const TaskConfig& config : task.configs()) names.push_back(config.name);
  EXPECT_THAT(names, ElementsAre("batch=64,init=kaiming", "batch=64,init=ones",
                                 "batch=4,init=kaiming", "batch=4,init=ones"));
  EXPECT_NO_THROW(task.validate());
}

TEST(TaskConfigs, SetDimsAndCapThemBySmallDimsOnTheCpu) {
  const TaskSpec task = linear_task();
  const TaskSpec& big_batch = task.configured(0);
  EXPECT_EQ(big_batch.default_dims().at("B"), 64);
  EXPECT_EQ(big_batch.small_dims().at("B"), 8);  // capped by small_dims
  const TaskSpec& small_batch = task.configured(2);
  EXPECT_EQ(small_batch.default_dims().at("B"), 4);
  EXPECT_EQ(small_batch.small_dims().at("B"), 4);  // already below the cap
  EXPECT_EQ(small_batch.config_name(), "batch=4,init=kaiming");
  EXPECT_THROW(task.configured(4), std::out_of_range);
}

TEST(TaskConfigs, DrawTheirInputsByTheirOwnLaws) {
  const TaskSpec task = linear_task();
  const Tensors kaiming = generate_inputs(task.configured(0), task.configured(0).small_dims(), 1);
  const Tensors ones = generate_inputs(task.configured(1), task.configured(1).small_dims(), 1);
  EXPECT_TRUE(at::equal(kaiming[0], ones[0])) << "the data does not depend on the init axis";
  EXPECT_TRUE(at::all(ones[1] == 1).item<bool>());
  EXPECT_LE(kaiming[1].abs().max().item<double>(), 1 / std::sqrt(32.0));
}

TEST(TaskConfigs, ATaskWithoutAxesHasOneDefaultConfigThatIsItself) {
  TaskSpec task("plain", __FILE__, __LINE__);
  task.input("x", {"N"}, values::normal()).outputs({"y"}).default_dims({{"N", 4}}).small_dims({{"N", 4}});
  ASSERT_EQ(task.configs().size(), 1u);
  EXPECT_EQ(task.configs()[0].name, "default");
  EXPECT_EQ(&task.configured(0), &task);
}

TEST(TaskConfigs, ValidationNamesAnUnknownDimOrInput) {
  TaskSpec bad_dim = linear_task();
  bad_dim.config_axis("typo", {{"x", {{"Q", 3}}, {}}});
  try {
    bad_dim.validate();
    FAIL() << "an unknown dim in a config must not validate";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), HasSubstr("config 'typo=x' sets dim 'Q'"));
  }
  TaskSpec bad_input = linear_task();
  bad_input.config_axis("typo", {{"x", {}, {{"weight", values::normal()}}}});
  EXPECT_THROW(bad_input.validate(), std::invalid_argument);
}

TEST(TaskFilterConfigs, AFindingOnSomeConfigsIsANote) {
  // The "ones" init makes the weights constant across seeds: on those configs varying the
  // weights moves nothing. A kernel must pass the kaiming configs too, so the task is fine.
  const TaskVerdict verdict = judge_task(linear_task());
  EXPECT_EQ(verdict.severity, TaskSeverity::healthy);
  EXPECT_THAT(verdict.notes, Contains(HasSubstr("config batch=64,init=ones: weight_impact")));
}

TEST(TaskFilterConfigs, AFindingOnEveryConfigExcludesTheTask) {
  TaskSpec task = linear_task();
  task.reference([](const Tensors& in) { return Tensors{at::linear(in[0], in[1]) * 0}; });
  const TaskVerdict verdict = judge_task(task);
  EXPECT_TRUE(verdict.excluded());
  EXPECT_THAT(verdict.reasons, Contains(HasSubstr("config batch=4,init=kaiming: output_range")));
}

TEST(TaskFilterConfigs, OneOutputThatIgnoresTheWeightsIsNotAFinding) {
  // Like a linear layer's backward pass: grad_w = grad_y^T x does not depend on w, grad_x does.
  TaskSpec task("two_outputs", __FILE__, __LINE__);
  task.input("x", {"B", "N"}, values::normal())
      .weight("w", {"N"}, values::normal())
      .outputs({"uses_w", "ignores_w"})
      .default_dims({{"B", 8}, {"N", 16}})
      .small_dims({{"B", 8}, {"N", 16}})
      .reference([](const Tensors& in) { return Tensors{in[0] * in[1], in[0].sin()}; });
  const TaskVerdict verdict = judge_task(task);
  EXPECT_EQ(verdict.severity, TaskSeverity::healthy);
  EXPECT_THAT(verdict.notes, ::testing::Not(Contains(HasSubstr("weight_impact"))));
}

TEST(BackwardTasks, TakeTheForwardInputsThenOneGradientPerOutput) {
  const TaskSpec backward = backward_task_of(linear_task(), "linear_backward", __FILE__, __LINE__);
  std::vector<std::string> inputs;
  for (const InputSpec& input : backward.inputs()) inputs.push_back(input.name);
  EXPECT_THAT(inputs, ElementsAre("x", "w", "grad_y"));
  EXPECT_THAT(backward.output_names(), ElementsAre("grad_x", "grad_w"));
  EXPECT_EQ(backward.forward_task_id(), "linear_with_configs");
  EXPECT_EQ(backward.configs().size(), 4u) << "configs carry over";
  EXPECT_NO_THROW(backward.validate());
}

TEST(BackwardBaseline, TimesTheBackwardAloneAndAgreesWithTheReference) {
  // A forward task whose reference counts its calls: the baseline must build the graph once per
  // input set, before timing, and never run the forward in a timed call.
  auto forward_calls = std::make_shared<int>(0);
  TaskSpec counted = linear_task();
  counted.reference([forward_calls](const Tensors& in) {
    ++*forward_calls;
    return Tensors{at::relu(at::linear(in[0], in[1]))};
  });
  const TaskSpec backward = backward_task_of(counted, "counted_backward", __FILE__, __LINE__);
  std::vector<Tensors> sets = {generate_inputs(backward, backward.small_dims(), 1),
                               generate_inputs(backward, backward.small_dims(), 2)};
  const int drawing_calls = *forward_calls;  // Drawing a cotangent runs the forward for its shape.
  const GradientRunner runner = backward_only_runner(backward, sets);
  EXPECT_EQ(*forward_calls, drawing_calls + 2) << "one forward pass per input set, at preparation";
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (const Tensors& set : sets) {
      const Tensors timed = runner(set);
      const Tensors expected = backward.reference()(set);
      ASSERT_EQ(timed.size(), expected.size());
      for (std::size_t k = 0; k < timed.size(); ++k) {
        // Assigned, not accumulated: the third call's gradients equal the first's.
        EXPECT_TRUE(at::allclose(timed[k], expected[k], 1e-5, 1e-6)) << "gradient " << k;
      }
    }
  }
  EXPECT_EQ(*forward_calls, drawing_calls + 2 + 6) << "only the references' own calls ran a forward pass";
  EXPECT_THROW(runner(generate_inputs(backward, backward.small_dims(), 3)), std::logic_error)
      << "inputs of a set it did not prepare";
  EXPECT_THAT(baseline_measures(backward, "eager_fp32"), HasSubstr("backward pass alone"));
  EXPECT_THAT(baseline_measures(backward, "compiled"), HasSubstr("vector-Jacobian product"));
  EXPECT_THAT(baseline_measures(counted, "eager_fp32"), HasSubstr("eager"));
  EXPECT_THROW(backward_only_runner(counted, sets), std::logic_error) << "not a backward task";
}

TEST(BackwardTasks, DrawTheOutputGradientInTheForwardOutputShape) {
  TaskSpec pool("pool", __FILE__, __LINE__);
  pool.input("x", {"B", "H", "W"}, values::normal())
      .outputs({"y"})
      .default_dims({{"B", 2}, {"H", 9}, {"W", 6}})
      .small_dims({{"B", 2}, {"H", 9}, {"W", 6}})
      .reference([](const Tensors& in) { return Tensors{at::max_pool1d(in[0], 2)}; });
  const TaskSpec backward = backward_task_of(pool, "pool_backward", __FILE__, __LINE__);
  const Tensors inputs = generate_inputs(backward, backward.small_dims(), 3);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[1].sizes().vec(), (std::vector<std::int64_t>{2, 9, 3}));
}

TEST(BackwardTasks, InputShapesAgreeWithDrawnInputsWithAndWithoutMetaKernels) {
  for (const char* id : {"rkb_mnist_pool_backward", "rkb_mnist_linear_relu_backward"}) {
    const TaskSpec& task = find_task(id)->configured(0);  // relu has no meta kernel
    std::vector<std::vector<std::int64_t>> drawn;
    for (const at::Tensor& input : generate_inputs(task, task.small_dims(), 1)) {
      drawn.push_back(input.sizes().vec());
    }
    EXPECT_EQ(input_shapes(task, task.small_dims()), drawn) << id;
  }
}

TEST(BackwardTasks, ReferenceIsTheVectorJacobianProduct) {
  const TaskSpec declared = linear_task();
  const TaskSpec backward = backward_task_of(declared.configured(0), "linear_backward", __FILE__, __LINE__);
  const Tensors in = generate_inputs(backward, backward.small_dims(), 5);
  const Tensors grads = run_reference_float64(backward, in, Device::cpu);
  ASSERT_EQ(grads.size(), 2u);
  const at::Tensor x = in[0].to(at::kDouble), w = in[1].to(at::kDouble), g = in[2].to(at::kDouble);
  EXPECT_TRUE(at::allclose(grads[0], at::matmul(g, w), 1e-12, 1e-12));    // grad_x = g w
  EXPECT_TRUE(at::allclose(grads[1], at::matmul(g.t(), x), 1e-12, 1e-12));  // grad_w = g^T x
}

TEST(BackwardTasks, OfABackwardTaskIsAnError) {
  const TaskSpec backward = backward_task_of(linear_task(), "b1", __FILE__, __LINE__);
  const TaskSpec twice = backward_task_of(backward, "b2", __FILE__, __LINE__);
  EXPECT_THROW(twice.validate(), std::invalid_argument);
}

TEST(RegisteredTasks, RobustKbenchTasksAreAllThere) {
  for (const char* id :
       {"rkb_layernorm", "rkb_llama_ffw", "rkb_llama_rmsnorm", "rkb_mnist_conv_relu_pool",
        "rkb_mnist_cross_entropy", "rkb_mnist_linear", "rkb_mnist_linear_relu", "rkb_mnist_pool",
        "rkb_resnet_block", "rkb_unet_conv2d", "rkb_unet_linear"}) {
    EXPECT_NE(find_task(id), nullptr) << id;
  }
  for (const char* id : {"rkb_layernorm", "rkb_llama_rmsnorm", "rkb_mnist_conv_relu_pool",
                         "rkb_mnist_cross_entropy", "rkb_mnist_linear", "rkb_mnist_linear_relu",
                         "rkb_mnist_pool", "rkb_unet_linear"}) {
    const TaskSpec* backward = find_task(std::string(id) + "_backward");
    ASSERT_NE(backward, nullptr) << id;
    EXPECT_EQ(backward->forward_task_id(), id);
  }
  EXPECT_EQ(find_task("rkb_mnist_linear")->configs().size(), 8u);
}

// Large inputs are drawn in parallel chunks: the values depend on the seed, not on the thread
// count, and the chunks are not copies of each other.
TEST(InputDrawing, LargeInputsAreTheSameOnAnyNumberOfThreads) {
  TaskSpec task("large_input", __FILE__, __LINE__);
  task.input("x", {"N"}, values::normal())
      .outputs({"y"})
      .default_dims({{"N", 3 * defaults::kInputDrawChunkElements + 5}})
      .small_dims({{"N", 8}})
      .reference([](const Tensors& in) { return Tensors{in[0] * 2}; });
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const Tensors one = generate_inputs(task, task.default_dims(), 5);
  at::set_num_threads(std::max(2, threads));
  const Tensors several = generate_inputs(task, task.default_dims(), 5);
  at::set_num_threads(threads);
  EXPECT_TRUE(at::equal(one[0], several[0]));
  EXPECT_FALSE(at::equal(generate_inputs(task, task.default_dims(), 6)[0], one[0]));
  const std::int64_t chunk = defaults::kInputDrawChunkElements;
  EXPECT_FALSE(at::equal(one[0].slice(0, 0, chunk), one[0].slice(0, chunk, 2 * chunk)));
  EXPECT_NEAR(one[0].mean().item<double>(), 0.0, 0.01);
  EXPECT_NEAR(one[0].std().item<double>(), 1.0, 0.01);
}

// Matrix structures: KernelBench's symmetric and triangular operands are drawn with their
// structure, which scaling and impose_structure (used after the replay gate's and the value
// families' changes) keep.
TEST(InputStructure, DrawnInputsHaveTheirLawsStructure) {
  TaskSpec task("structured_matmul", __FILE__, __LINE__);
  task.input("S", {"N", "N"}, values::symmetric(values::uniform(0, 1)))
      .input("U", {"N", "N"}, values::upper_triangular(values::normal()))
      .input("L", {"N", "N"}, values::lower_triangular(values::normal()))
      .outputs({"C"})
      .default_dims({{"N", 9}})
      .small_dims({{"N", 9}})
      .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1] + in[2])}; });
  const Tensors inputs = generate_inputs(task, {{"N", 9}}, 7);
  EXPECT_TRUE(at::equal(inputs[0], inputs[0].t()));
  EXPECT_GT(inputs[0].abs().min().item<float>(), 0.0f);  // symmetric, not zeroed
  EXPECT_TRUE(at::equal(inputs[1], at::triu(inputs[1])));
  EXPECT_FALSE(at::equal(inputs[1], at::zeros_like(inputs[1])));
  EXPECT_TRUE(at::equal(inputs[2], at::tril(inputs[2])));
  EXPECT_EQ(task.inputs()[0].values.describe(), "symmetric(uniform[0, 1))");
  EXPECT_EQ(task.inputs()[1].values.describe(), "upper_triangular(normal(0, 1))");

  at::Tensor changed = inputs[1].clone();
  changed.view(-1).index_put_({at::tensor({9 * 8 + 1}, at::kLong)}, 5.0);  // below the diagonal
  impose_structure(task.inputs()[1].values, changed);
  EXPECT_TRUE(at::equal(changed, at::triu(changed)));
  at::Tensor dense = at::ones({3, 3});
  impose_structure(values::normal(), dense);
  EXPECT_TRUE(at::equal(dense, at::ones({3, 3})));
}

// A hidden `range` case redraws values uniformly; the structure of the law is imposed again.
TEST(InputStructure, HiddenRangeCasesKeepTheStructure) {
  const TaskSpec* task = find_task("kb_l1_013");
  ASSERT_NE(task, nullptr);
  KernelSpec kernel("kb_l1_013", "structure_probe", {[](KernelCall&) {}, false}, Device::cpu,
                    "here.cpp", 1);
  CaseInputs inputs;
  inputs.dims = task->small_dims();
  inputs.seed = 3;
  inputs.value_range = std::make_pair(-2.0, 5.0);
  const PreparedCase prepared = prepare_case(kernel, *task, inputs);
  const at::Tensor& a = prepared.drawn_inputs[0];
  EXPECT_TRUE(at::equal(a, a.t()));
  EXPECT_LT(a.min().item<double>(), 0.0);  // redrawn in [-2, 5), not the task's U[0, 1)
}

TEST(InputStructure, KernelBenchStructuredProblemsDrawStructuredOperands) {
  for (const char* id : {"kb_l1_013", "kb_l1_014", "kb_l1_015"}) {
    const TaskSpec* task = find_task(id);
    ASSERT_NE(task, nullptr) << id;
    const Tensors inputs = generate_inputs(*task, task->small_dims(), 11);
    const auto& a = inputs[0];
    const at::Tensor expected = std::string(id) == "kb_l1_013"   ? a.t()
                                : std::string(id) == "kb_l1_014" ? at::triu(a)
                                                                 : at::tril(a);
    EXPECT_TRUE(at::equal(a, expected)) << id;
  }
}

// On a task stored in bf16 or fp16 the eager baselines run in that dtype: what the report says
// each baseline times names it, so that "eager_fp32" is not read as an fp32 computation.
TEST(BaselineMeasures, SixteenBitTasksNameTheDtypeTheEagerBaselinesRunIn) {
  const TaskSpec* softmax = find_task("softmax_bf16");
  const TaskSpec* backward = find_task("attention_causal_fp16_backward");
  const TaskSpec* fp32 = find_task("softmax");
  ASSERT_NE(softmax, nullptr);
  ASSERT_NE(backward, nullptr);
  ASSERT_NE(fp32, nullptr);
  EXPECT_THAT(baseline_measures(*softmax, "eager_fp32"), HasSubstr("in bfloat16 (the task's dtype"));
  EXPECT_THAT(baseline_measures(*softmax, "eager_tf32"), HasSubstr("in bfloat16"));
  EXPECT_THAT(baseline_measures(*backward, "eager_fp32"), HasSubstr("backward pass alone"));
  EXPECT_THAT(baseline_measures(*backward, "eager_fp32"), HasSubstr("in float16"));
  EXPECT_THAT(baseline_measures(*softmax, "compiled"), Not(HasSubstr("in bfloat16")));
  EXPECT_THAT(baseline_measures(*fp32, "eager_fp32"), Not(HasSubstr("the task's dtype")));
}

}  // namespace
}  // namespace rkt
