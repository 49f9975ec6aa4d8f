// The benchmark's input sets are complete on the device when they are handed to the timer: a
// draw still running on another stream would share the device with the first timed calls
// (`rkt baselines` drew on the legacy default stream and timed on the kernel's stream, so eager
// fp32 ran up to 65% slow on memory-bound KernelBench problems: docs/gpu_runs.md, run 23).
#include <gtest/gtest.h>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

#include "framework/benchmarks/benchmark_case.h"
#include "framework/runtime/device_support.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

const TaskSpec& relu_task() {
  const TaskSpec* task = find_task("relu");
  if (task == nullptr) throw std::runtime_error("the relu task is not registered");
  return *task;
}

TEST(BenchmarkInputSets, OneSetPerSeedAtTheTestDims) {
  const KernelSpec stand_in("relu", "baseline", {}, Device::cpu, "", 0);
  const std::vector<PreparedCase> sets = prepare_benchmark_input_sets(stand_in, relu_task());
  ASSERT_EQ(static_cast<int>(sets.size()), defaults::kBenchmarkInputSets);
  EXPECT_FALSE(sets[0].device_inputs[0].equal(sets[1].device_inputs[0]));
}

TEST(BenchmarkInputSets, TheDrawHasFinishedOnEveryStreamWhenTheyAreReturned) {
  if (!device_available(Device::cuda)) GTEST_SKIP() << device_unavailable_reason(Device::cuda);
#if RKT_WITH_CUDA
  const KernelSpec stand_in("relu", "baseline", {}, Device::cuda, "", 0);
  // No kernel stream is current: the draw is queued on the legacy default stream, as in
  // measure_baselines before the fix.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<PreparedCase> sets = prepare_benchmark_input_sets(stand_in, relu_task());
  EXPECT_EQ(cudaStreamQuery(cudaStreamLegacy), cudaSuccess)
      << "the draw is still running on the legacy default stream";
  KernelStreamScope kernel_stream(Device::cuda);
  EXPECT_EQ(cudaStreamQuery(static_cast<cudaStream_t>(kernel_stream.stream())), cudaSuccess);
#endif
}

}  // namespace
}  // namespace rkt
