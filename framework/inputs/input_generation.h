// Drawing a task's inputs from a seed.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// The shapes generate_inputs would give at `dims`, without drawing values where it can (a
/// backward task's output gradients take the forward outputs' shapes, from meta tensors).
std::vector<std::vector<std::int64_t>> input_shapes(const TaskSpec& task, const Dims& dims);

/// The task's inputs at `dims`, drawn on `device` from `seed`, in the task's dtypes, contiguous.
/// The values depend on the seed alone: the same on every machine and every device (bit for bit
/// for every law but the normal ones, whose float64 transcendentals may differ in the last bit
/// between devices: counter_random.h).
std::vector<at::Tensor> generate_inputs(const TaskSpec& task, const Dims& dims,
                                        std::uint64_t seed, c10::Device device = c10::kCPU);

/// Gives `tensor` (drawn from `law`) the law's matrix structure, in place: symmetric, upper or
/// lower triangular over the last two dims; nothing for dense laws.
void impose_structure(const ValueDistribution& law, at::Tensor& tensor);

}  // namespace rkt
