// What the judge's own phases cost, one operation at a time, as Google Benchmark entries: drawing
// an input (each way the counter laws can be computed) and comparing an output with its float64
// reference (by ATen operations and, on a GPU, by the comparison kernel). `rkt test --json` reports
// the same phases summed over a case (time_breakdown_ms); these entries isolate one call so that a
// change to either phase can be measured alone, on the CPU and, where one is present, on a GPU
// (tools/gpu/run.sh, step "phase_bench").
//
//   rkt_phase_benchmarks [--elements N] [google benchmark flags]
//
// --elements (default kDefaultElements) sets every entry's size; ctest runs it small, as a check
// that each entry runs.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "framework/comparison/output_comparison.h"
#include "framework/inputs/counter_random.h"
#include "framework/runtime/device_support.h"
#include "rkt/precision.h"

namespace {

constexpr std::int64_t kDefaultElements = 64ll << 20;  // [elements]: relu's test size on a GPU
constexpr std::uint64_t kKey = 20261205;                // any fixed counter key

c10::Device torch_device(rkt::Device device) {
  return device == rkt::Device::cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
}

const char* path_name(rkt::CounterPath path) {
  switch (path) {
    case rkt::CounterPath::automatic: return "automatic";
    case rkt::CounterPath::tensor_ops: return "tensor_ops";
    case rkt::CounterPath::kernel: return "kernel";
  }
  return "?";
}

// One N(0, 1) input of `elements`, drawn by `path` and finished on the device.
void draw_normal(benchmark::State& state, rkt::Device device, rkt::CounterPath path,
                 std::int64_t elements) {
  for (auto _ : state) {
    const at::Tensor drawn = rkt::counter_normal({elements}, kKey, 0, 1, torch_device(device), path);
    rkt::synchronize_device(device);
    benchmark::DoNotOptimize(drawn.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * elements);
  state.SetBytesProcessed(state.iterations() * elements * static_cast<std::int64_t>(sizeof(float)));
}

// check_output on a float32 output within fp32's tolerance of its float64 reference: every
// scalar it reports, fetched back to the host.
void compare_output(benchmark::State& state, rkt::Device device, rkt::ComparisonPath path,
                    std::int64_t elements) {
  const c10::Device where = torch_device(device);
  const at::Tensor reference =
      rkt::counter_normal({elements}, kKey, 0, 1, where).to(at::kDouble);
  const at::Tensor output =
      (reference + 1e-7 * rkt::counter_normal({elements}, kKey + 1, 0, 1, where)).to(at::kFloat);
  const rkt::Tolerance tolerance = rkt::default_tolerance(rkt::Precision::fp32);
  rkt::synchronize_device(device);
  for (auto _ : state) {
    const rkt::OutputCheck check =
        rkt::check_output(output, reference, at::kFloat, where, tolerance, 0.0, path);
    if (!check.passed) {
      state.SkipWithError(("the output should pass: " + check.message).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * elements);
}

std::int64_t take_elements_flag(int& argc, char** argv) {
  std::int64_t elements = kDefaultElements;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--elements") == 0 && i + 1 < argc) {
      elements = std::strtoll(argv[++i], nullptr, 10);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return elements > 0 ? elements : kDefaultElements;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t elements = take_elements_flag(argc, argv);
  std::vector<rkt::Device> devices = {rkt::Device::cpu};
  if (rkt::device_available(rkt::Device::cuda)) devices.push_back(rkt::Device::cuda);
  for (const rkt::Device device : devices) {
    const std::string on = device == rkt::Device::cuda ? "cuda" : "cpu";
    std::vector<rkt::CounterPath> paths = {rkt::CounterPath::automatic, rkt::CounterPath::tensor_ops};
    if (device == rkt::Device::cuda) paths.push_back(rkt::CounterPath::kernel);
    for (const rkt::CounterPath path : paths) {
      benchmark::RegisterBenchmark(("draw_normal/" + on + "/" + path_name(path)).c_str(),
                                   [device, path, elements](benchmark::State& state) {
                                     draw_normal(state, device, path, elements);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    std::vector<rkt::ComparisonPath> comparisons = {rkt::ComparisonPath::tensor_ops};
    if (device == rkt::Device::cuda) comparisons.push_back(rkt::ComparisonPath::kernel);
    for (const rkt::ComparisonPath path : comparisons) {
      const std::string name = path == rkt::ComparisonPath::kernel ? "kernel" : "tensor_ops";
      benchmark::RegisterBenchmark(("check_output/" + on + "/" + name).c_str(),
                                   [device, path, elements](benchmark::State& state) {
                                     compare_output(state, device, path, elements);
                                   })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
