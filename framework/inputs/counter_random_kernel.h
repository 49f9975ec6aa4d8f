// The GPU's draw of the counter-based laws (framework/inputs/counter_random.h) as one kernel per
// law: each thread computes its elements' words and values and writes float32 once. The tensor
// path it replaces ran about forty int64 and float64 ATen operations over every element (about
// 0.05 s per 64 M elements on the H200; a relu verdict's cases spent 1.5 of 2.9 s drawing, run
// 38). No CUDA headers here, so C++ files can call it.
#pragma once

#include <cstdint>

namespace rkt {

/// Each queues on `cuda_stream` (a cudaStream_t) a kernel that writes elements [first, first +
/// count) of the law under its key(s) to `out` (device memory, float32, contiguous), rounding
/// exactly as the tensor path does (float64 products and sums, each rounded, never fused).
/// Returns the launch's cudaError_t as an int (0: queued).
int enqueue_counter_uniform(float* out, std::uint64_t first, std::int64_t count, std::uint64_t key,
                            double width, double low, void* cuda_stream);
int enqueue_counter_normal(float* out, std::uint64_t first, std::int64_t count,
                           std::uint64_t radius_key, std::uint64_t angle_key, double stddev,
                           double mean, void* cuda_stream);
int enqueue_counter_bernoulli(float* out, std::uint64_t first, std::int64_t count,
                              std::uint64_t key, std::int64_t threshold, void* cuda_stream);

}  // namespace rkt
