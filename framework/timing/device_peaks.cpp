#include "framework/timing/device_peaks.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "framework/runtime/torch_bridge.h"
#include "framework/timing/timing_engine.h"

#if RKT_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace rkt {
namespace {

// The fastest of a few timed calls: a ceiling, not a typical time.
double best_ms(Device device, const std::function<void()>& call) {
  TimingOptions options = default_timing_options(device);
  options.min_samples = 5;
  options.max_samples = 10;
  options.target_noise = 0;
  const Measurement measurement = measure(device, options, [](int) {}, [&](int) { call(); });
  return *std::min_element(measurement.samples.begin(), measurement.samples.end());
}

double matmul_rate(Device device, std::int64_t n, at::ScalarType dtype, const char* precision) {
  at::globalContext().setFloat32MatmulPrecision(precision);
  const auto options = at::TensorOptions().dtype(dtype).device(to_torch_device(device));
  const at::Tensor a = at::randn({n, n}, options), b = at::randn({n, n}, options);
  at::Tensor c = at::empty({n, n}, options);
  const double ms = best_ms(device, [&] { at::mm_out(c, a, b); });
  at::globalContext().setFloat32MatmulPrecision("highest");
  return 2.0 * n * n * n / (ms / 1e3);
}

DevicePeaks measure_peaks(Device device) {
  DevicePeaks peaks;
  const bool cuda = device == Device::cuda;
#if RKT_WITH_CUDA
  if (cuda) peaks.device_name = at::cuda::getCurrentDeviceProperties()->name;
#endif
  if (!cuda) peaks.device_name = "cpu (" + std::to_string(at::get_num_threads()) + " threads)";
  const std::int64_t copy_elements = cuda ? (1ll << 28) : (1ll << 25);  // 1 GiB / 128 MiB
  const auto float_options = at::TensorOptions().dtype(at::kFloat).device(to_torch_device(device));
  {
    const at::Tensor source = at::ones({copy_elements}, float_options);
    at::Tensor destination = at::empty_like(source);
    const double ms = best_ms(device, [&] { destination.copy_(source); });
    peaks.copy_bytes_per_second = 2.0 * copy_elements * 4 / (ms / 1e3);
  }
  const std::int64_t n = cuda ? 8192 : 1024;
  peaks.fp32_flops_per_second = matmul_rate(device, n, at::kFloat, "highest");
  peaks.tf32_flops_per_second =
      cuda ? matmul_rate(device, n, at::kFloat, "high") : peaks.fp32_flops_per_second;
  peaks.bf16_flops_per_second =
      cuda ? matmul_rate(device, n, at::kBFloat16, "highest") : peaks.fp32_flops_per_second;
  TimingOptions options = default_timing_options(device);
  options.max_samples = 200;
  peaks.harness_overhead_ms = measure(device, options, [](int) {}, [](int) {}).summary.median;
  return peaks;
}

}  // namespace

const DevicePeaks& measured_peaks(Device device, const std::string& cache_file) {
  static std::map<Device, DevicePeaks> cache;
  auto found = cache.find(device);
  if (found != cache.end()) return found->second;
  if (!cache_file.empty()) {
    std::ifstream file(cache_file);
    if (file) {
      std::stringstream text;
      text << file.rdbuf();
      return cache.emplace(device, deserialize_device_peaks(text.str())).first->second;
    }
  }
  const DevicePeaks& peaks = cache.emplace(device, measure_peaks(device)).first->second;
  if (!cache_file.empty()) std::ofstream(cache_file) << serialize(peaks);
  return peaks;
}

std::string serialize(const DevicePeaks& peaks) {
  std::ostringstream text;
  text.precision(17);
  text << "device_name=" << peaks.device_name << "\ncopy_bytes_per_second="
       << peaks.copy_bytes_per_second << "\nfp32_flops_per_second=" << peaks.fp32_flops_per_second
       << "\ntf32_flops_per_second=" << peaks.tf32_flops_per_second
       << "\nbf16_flops_per_second=" << peaks.bf16_flops_per_second
       << "\nharness_overhead_ms=" << peaks.harness_overhead_ms << "\n";
  return text.str();
}

DevicePeaks deserialize_device_peaks(const std::string& text) {
  DevicePeaks peaks;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) throw std::invalid_argument("malformed peaks line: " + line);
    const std::string key = line.substr(0, equals), value = line.substr(equals + 1);
    if (key == "device_name") peaks.device_name = value;
    if (key == "copy_bytes_per_second") peaks.copy_bytes_per_second = std::stod(value);
    if (key == "fp32_flops_per_second") peaks.fp32_flops_per_second = std::stod(value);
    if (key == "tf32_flops_per_second") peaks.tf32_flops_per_second = std::stod(value);
    if (key == "bf16_flops_per_second") peaks.bf16_flops_per_second = std::stod(value);
    if (key == "harness_overhead_ms") peaks.harness_overhead_ms = std::stod(value);
  }
  return peaks;
}

double peak_flops_per_second(const DevicePeaks& peaks, Precision precision) {
  switch (precision) {
    case Precision::fp32: return peaks.fp32_flops_per_second;
    case Precision::tf32: return peaks.tf32_flops_per_second;
    case Precision::bf16:
    case Precision::fp16: return peaks.bf16_flops_per_second;
  }
  return peaks.fp32_flops_per_second;
}

double physical_floor_ms(const DevicePeaks& peaks, Precision precision, double bytes,
                         double flops) {
  const double memory_ms = peaks.copy_bytes_per_second > 0 ? bytes / peaks.copy_bytes_per_second * 1e3 : 0;
  const double rate = peak_flops_per_second(peaks, precision);
  const double compute_ms = rate > 0 ? flops / rate * 1e3 : 0;
  return std::max(memory_ms, compute_ms);
}

}  // namespace rkt
