// The GPU's draw of the counter-based laws (framework/inputs/counter_random.h) as one kernel per
// law: each thread computes its elements' words and values and writes float32 once. The tensor
// path runs about forty int64 and float64 ATen operations over every element: about 30 ms per
// 64 M-element input set on the H200, and 1.5 of relu's 2.9 s of cases (run 38). Used with
// CounterPath::kernel, and by CounterPath::automatic on a GPU unless RKT_GPU_DRAW_KERNEL=0 (run
// 39, H200: the CPU's bits, 0.52 ms per 64 Mi elements against the tensor path's 30 ms). No CUDA
// headers here, so C++ files can call it.
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
