#include "framework/runtime/cache_flush.h"

#include <ATen/ATen.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#if RKT_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace rkt {
namespace {

// The last-level cache of CPU 0 from sysfs, or 32 MiB when it cannot be read; read once (a
// worker reads it before its sandbox closes /sys).
std::int64_t host_cache_bytes() {
  static const std::int64_t bytes = [] {
    std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index3/size");
    std::string text;
    if (file >> text && !text.empty()) {
      const std::int64_t value = std::atoll(text.c_str());
      const char unit = text.back();
      if (unit == 'K') return value << 10;
      if (unit == 'M') return value << 20;
      return value;
    }
    return std::int64_t{32} << 20;
  }();
  return bytes;
}

}  // namespace

void learn_cache_sizes() { host_cache_bytes(); }

void flush_caches(Device device) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) {
    static at::Tensor buffer = at::empty(
        {2 * static_cast<std::int64_t>(at::cuda::getCurrentDeviceProperties()->l2CacheSize)},
        at::TensorOptions().dtype(at::kByte).device(at::kCUDA));
    buffer.zero_();
    return;
  }
#endif
  (void)device;
  static std::vector<char> buffer(static_cast<std::size_t>(2 * host_cache_bytes()));
  std::memset(buffer.data(), static_cast<int>(buffer[0] + 1), buffer.size());
}

}  // namespace rkt
