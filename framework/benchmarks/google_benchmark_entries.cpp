#include "framework/benchmarks/google_benchmark_entries.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "framework/benchmarks/benchmark_case.h"
#include "framework/dims/dim_resolution.h"
#include "framework/runtime/device_support.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

void report(benchmark::State& state, const Measurement& measurement,
            const TaskSpec& declared_task, Device device) {
  const TaskSpec& task = declared_task.configured(0);  // What time_kernel/time_baseline ran.
  state.SetIterationTime(measurement.summary.median / 1e3);
  state.counters["samples"] = measurement.summary.count;
  state.counters["noise_pct"] = 100 * measurement.summary.relative_noise;
  state.counters["iqr_ms"] = measurement.summary.iqr();
  const Dims& dims = task.test_dims(device);
  const double seconds = measurement.summary.median / 1e3;
  if (seconds > 0) {
    state.counters["bytes_per_second"] = task.minimal_bytes(dims) / seconds;
    state.counters["flops_per_second"] = task.flop_count(dims) / seconds;
  }
}

// The entries that failed (not those skipped for a missing device or baseline): the run's exit
// status says so.
std::vector<std::string>& failed_entries() {
  static std::vector<std::string> failed;
  return failed;
}

}  // namespace

int run_google_benchmark(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::set<std::pair<std::string, Device>> task_devices;
  for (const KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;
    task_devices.insert({task->id(), kernel->device()});
    benchmark::RegisterBenchmark(kernel->full_id().c_str(), [kernel, task](benchmark::State& state) {
      if (!device_available(kernel->device())) {
        state.SkipWithError(device_unavailable_reason(kernel->device()).c_str());
        return;
      }
      for (auto _ : state) {
        try {
          report(state, time_kernel(*kernel, *task), *task, kernel->device());
        } catch (const std::exception& error) {
          // A refused timing or a failing kernel ends this entry with its reason; the others run.
          failed_entries().push_back(kernel->full_id());
          state.SkipWithError((kernel->full_id() + ": " + error.what()).c_str());
          break;
        }
      }
    })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
  }
  for (const auto& [task_id, device] : task_devices) {
    const TaskSpec* task = find_task(task_id);
    for (const std::string& baseline : baseline_names()) {
      const std::string name = task_id + "/baseline:" + baseline + "@" + to_string(device);
      benchmark::RegisterBenchmark(name.c_str(), [task, device = device, baseline, name](benchmark::State& state) {
        if (!device_available(device)) {
          state.SkipWithError(device_unavailable_reason(device).c_str());
          return;
        }
        for (auto _ : state) {
          std::string absent;
          try {
            const Measurement measurement = time_baseline(*task, device, baseline, absent);
            if (!absent.empty()) {
              state.SkipWithError(absent.c_str());
              break;
            }
            report(state, measurement, *task, device);
          } catch (const std::exception& error) {
            failed_entries().push_back(name);
            state.SkipWithError((name + ": " + error.what()).c_str());
            break;
          }
        }
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!failed_entries().empty()) {
    std::fprintf(stderr, "rkt bench: %zu entr%s failed (reasons above):", failed_entries().size(),
                 failed_entries().size() == 1 ? "y" : "ies");
    for (const std::string& entry : failed_entries()) std::fprintf(stderr, " %s", entry.c_str());
    std::fprintf(stderr, "\n");
    return 1;
  }
  return 0;
}

}  // namespace rkt
