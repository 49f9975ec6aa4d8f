// Counter-based random values: each element is a function of a 64-bit key and its index alone.
//
// Why: a case's inputs used to be drawn on the host by a sequential generator and copied to the
// GPU; for a large input that was over 99% of a verdict's time. A counter-based generator (the
// idea behind Philox) needs no state, so any device can draw any element: the judge draws a CUDA
// kernel's inputs on the GPU and a CPU kernel's on the CPU, and the same seed gives the same
// values on both, for any number of threads or chunks.
//
// The word of element i under key k is two rounds of a 32-bit integer mixer (multiply-xorshift,
// bijective on 32 bits) over the index's two halves and the key's two halves. On the CPU it is a
// plain loop; on other devices the same arithmetic runs as ATen integer operations on int64
// tensors whose products never exceed 2^63, so both are exact and agree bit for bit.
//
// Exactness of the laws built on the words (tested on the CPU: tests/unit/counter_random_test.cpp;
// on the H200 by tools/gpu/run.sh, docs/gpu_runs.md):
//   uniform, Bernoulli, integers: bit-identical on every device (integer arithmetic, then one
//     float64 multiply and add and a rounding to float32, each correctly rounded in IEEE 754).
//   normal (Box-Muller in float64): log, sqrt and cos may differ in the last bit of a float64
//     between the CPU's libm and CUDA's; after rounding to float32 that changes an element only
//     when the float64 value lies within an ulp of a float32 rounding boundary (about 1 element
//     in 2^28).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace rkt {

/// A key for one stream of values: `seed` and `stream` mixed, so that nearby seeds or streams
/// give unrelated values.
std::uint64_t counter_key(std::uint64_t seed, std::uint64_t stream);

/// The 32-bit word of element `index` under `key` (the reference every device path matches).
std::uint32_t counter_word(std::uint64_t key, std::uint64_t index);

/// Words of elements [first, first + count) under `key`, as an int64 tensor on `device` (values
/// in [0, 2^32)). The CPU path is a loop; every other device runs ATen integer operations.
at::Tensor counter_words(std::uint64_t key, std::int64_t first, std::int64_t count,
                         c10::Device device);

/// Same words, always through ATen integer operations (the path GPUs take), for tests on the CPU.
at::Tensor counter_words_by_tensor_ops(std::uint64_t key, std::int64_t first, std::int64_t count,
                                       c10::Device device);

/// How a law is computed: `automatic` runs the exact laws as one loop per chunk on the CPU and,
/// on a GPU, with one kernel per law (or as tensor operations when RKT_GPU_DRAW_KERNEL=0);
/// `tensor_ops` forces the tensor operations, so that tests on the CPU can hold the two paths to
/// the same bits; `kernel` forces the draw kernels on a CUDA device (counter_random_kernel.h).
/// On the H200 the kernels drew the CPU's bits and the tensor path's (64 Mi elements, 0
/// differing; tests/unit/counter_random_test.cpp, AGpuDrawsTheCpuValues; docs/gpu_runs.md,
/// run 39), 58x faster than the tensor operations.
enum class CounterPath { automatic, tensor_ops, kernel };

/// RKT_GPU_DRAW_KERNEL=0: `automatic` draws on a GPU with tensor operations instead of the kernels.
inline constexpr const char* kGpuDrawKernelVariable = "RKT_GPU_DRAW_KERNEL";

/// float32 tensors of `sizes` on `device`, contiguous.
/// U[low, high) with 24 random bits per element.
at::Tensor counter_uniform(at::IntArrayRef sizes, std::uint64_t key, double low, double high,
                           c10::Device device, CounterPath path = CounterPath::automatic);
/// N(mean, stddev), Box-Muller over two streams of the key.
at::Tensor counter_normal(at::IntArrayRef sizes, std::uint64_t key, double mean, double stddev,
                          c10::Device device, CounterPath path = CounterPath::automatic);
/// 1 with probability `probability`, else 0.
at::Tensor counter_bernoulli(at::IntArrayRef sizes, std::uint64_t key, double probability,
                             c10::Device device, CounterPath path = CounterPath::automatic);
/// Integers in [low, high) as `dtype` (high - low below 2^31).
at::Tensor counter_integers(at::IntArrayRef sizes, std::uint64_t key, std::int64_t low,
                            std::int64_t high, c10::ScalarType dtype, c10::Device device,
                            CounterPath path = CounterPath::automatic);

}  // namespace rkt
