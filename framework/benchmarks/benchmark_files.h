// Where a kernel's supervised benchmark case leaves its results for the main job.
#pragma once

#include <string>

#include "rkt/registration.h"

namespace rkt {

/// Set by the main job for its kernels' children: the folder benchmark results go to.
inline constexpr const char* kBenchmarkDirectoryVariable = "RKT_BENCHMARK_DIR";

/// "<dir>/relu__cpu_loops.benchmark": one file per kernel.
std::string benchmark_record_path(const std::string& directory, const KernelSpec& kernel);
/// "<dir>/peaks_cuda.txt": the device's measured peaks, shared by the run's children.
std::string peaks_path(const std::string& directory, Device device);
/// "<dir>/empty_request_cpu.txt": what an empty timed call costs the judge on the CPU (a cache
/// flush of twice the last-level cache, tens of milliseconds), measured by the run's first
/// benchmark child and read by the others.
std::string empty_request_path(const std::string& directory, Device device);

}  // namespace rkt
