// Metamorphic relations: properties a task's outputs have without a reference, e.g.
// softmax(x + c) = softmax(x), layernorm(a x + c) = layernorm(x) for a > 0, matmul(aA, bB) = ab AB.
// A relation case runs the kernel twice (on x and on the transformed x) and checks the second
// output against what the relation predicts from the first: no float64 reference, so it runs at
// the test size (the benchmark size on CUDA), and it catches shortcuts that depend on magnitude.
// The bound is what an honest kernel of the claimed class shows: the task's reference in float32
// on inputs rounded to the class, run on both input sets, sets how far the relation may be missed.
//
// Declared next to the task, in tasks/:
//   RKT_RELATION(softmax, "shift", "softmax(x + c) = softmax(x), c per row",
//                [](const rkt::Tensors& in, at::Generator& g) { ... return rkt::RelationInstance{...}; });
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

namespace rkt {

using Tensors = std::vector<at::Tensor>;

/// One draw of a relation: the inputs of the second run, and the outputs it must give, computed
/// from the first run's outputs (float64, on the kernel's device; move captured tensors there).
struct RelationInstance {
  Tensors transformed;
  std::function<Tensors(const Tensors& first_outputs)> expected;
  std::string drawn{};  ///< What was drawn, for messages: "a = 0.25".
};

/// Draws an instance from the case's inputs (on the kernel's device, as drawn) and a CPU
/// generator. Tensors drawn with the generator are created on the CPU (so the values do not
/// depend on the device): move them to the inputs' device (`.to(inputs[0].device())`).
using RelationDraw = std::function<RelationInstance(const Tensors& inputs, at::Generator& generator)>;

struct MetamorphicRelation {
  std::string name;       ///< Used in the case name: relation_<name>.
  std::string statement;  ///< What holds, e.g. "softmax(x + c) = softmax(x)".
  RelationDraw draw;
};

int register_relation(const std::string& task_id, MetamorphicRelation relation, const char* file,
                      int line);

/// The relations task `task_id` declared (none when it declared none).
const std::vector<MetamorphicRelation>& relations_of(const std::string& task_id);

/// Every task id that declared a relation.
std::vector<std::string> tasks_with_relations();

namespace relations {
/// A uniform value in [low, high).
double uniform(at::Generator& generator, double low, double high);
/// 2^k for k uniform in [low, high], k != 0: scales that floating point represents exactly, so
/// that an honest kernel meets a scaling relation to the last bit unless it adds a constant.
double power_of_two(at::Generator& generator, int low, int high);
/// `x` times a scalar / plus a scalar, as float32 (inputs are float32).
at::Tensor scaled(const at::Tensor& x, double factor);
at::Tensor shifted(const at::Tensor& x, double offset);
}  // namespace relations

}  // namespace rkt

#ifndef RKT_CONCAT
#define RKT_CONCAT_INNER(a, b) a##b
#define RKT_CONCAT(a, b) RKT_CONCAT_INNER(a, b)
#endif

/// Declares a relation of a task: RKT_RELATION(task_id, "name", "statement", draw_function);
#define RKT_RELATION(task_id, name, statement, ...)                                          \
  [[maybe_unused]] static const int RKT_CONCAT(rkt_relation_, __COUNTER__) =                 \
      ::rkt::register_relation(#task_id, ::rkt::MetamorphicRelation{name, statement, __VA_ARGS__}, \
                               __FILE__, __LINE__)
