#include "framework/runtime/cache_flush.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
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

void flush_caches(Device device, void* cuda_stream) {
#if RKT_WITH_CUDA
  if (device == Device::cuda) {
    struct DeviceBuffer {
      void* data = nullptr;
      std::size_t bytes = 0;  // [bytes] twice the L2
    };
    static const DeviceBuffer buffer = [] {
      int current = 0, l2_bytes = 0;
      DeviceBuffer made;
      if (cudaGetDevice(&current) != cudaSuccess ||
          cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, current) != cudaSuccess) {
        throw std::runtime_error("cache flush: cannot read the device's L2 size");
      }
      made.bytes = 2 * static_cast<std::size_t>(l2_bytes);
      if (cudaMalloc(&made.data, made.bytes) != cudaSuccess) {
        throw std::runtime_error("cache flush: cannot allocate " + std::to_string(made.bytes) +
                                 " bytes on the device");
      }
      return made;
    }();
    cudaMemsetAsync(buffer.data, 0, buffer.bytes, static_cast<cudaStream_t>(cuda_stream));
    return;
  }
#endif
  (void)device;
  (void)cuda_stream;
  static std::vector<char> buffer(static_cast<std::size_t>(2 * host_cache_bytes()));
  std::memset(buffer.data(), static_cast<int>(buffer[0] + 1), buffer.size());
}

}  // namespace rkt
