#include "framework/inputs/counter_random.h"

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#if RKT_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

#include "framework/base/environment_switch.h"
#include "framework/inputs/counter_random_kernel.h"  // declarations only; defined in CUDA builds
#include "framework/inputs/counter_word.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

using counter_word_detail::kMixFirst;
using counter_word_detail::kMixSecond;
using counter_word_detail::kTwoPi;
using counter_word_detail::kTwoToMinus24;
using counter_word_detail::unit_of;
constexpr std::int64_t kLow32 = 0xFFFFFFFFLL;

// x * factor mod 2^32 for int64 tensors holding values below 2^32: the factor is split into
// 16-bit halves so that no product reaches 2^63 (exact on every device).
void multiply_low32_(at::Tensor& x, std::uint32_t factor) {
  const std::int64_t high = factor >> 16, low = factor & 0xFFFFU;
  at::Tensor high_part = x.mul(high).bitwise_and_(0xFFFF).bitwise_left_shift_(16);
  x.mul_(low).add_(high_part).bitwise_and_(kLow32);
}

void xor_shift_right_(at::Tensor& x, int bits) { x.bitwise_xor_(at::bitwise_right_shift(x, bits)); }

void mix32_(at::Tensor& x) {
  xor_shift_right_(x, 16);
  multiply_low32_(x, kMixFirst);
  xor_shift_right_(x, 15);
  multiply_low32_(x, kMixSecond);
  xor_shift_right_(x, 16);
}

// Elements per chunk: bounds the temporaries (int64 words, float64 values) a draw allocates.
std::int64_t chunk_elements(c10::Device device) {
  return device.is_cpu() ? defaults::kInputDrawChunkElements
                         : defaults::kDeviceInputDrawChunkElements;
}

// A tensor of `sizes` and `dtype` on `device`, filled chunk by chunk with `values(first, count)`
// (values of those elements, converted on copy): in parallel on the CPU, one chunk after the
// other elsewhere (each chunk is already parallel on a GPU). The values depend on the key and
// the element's index only, so the chunking never shows.
template <typename Values>
at::Tensor filled(at::IntArrayRef sizes, c10::Device device, c10::ScalarType dtype,
                  Values values) {
  at::Tensor tensor = at::empty(sizes, at::TensorOptions().dtype(dtype).device(device));
  const std::int64_t elements = tensor.numel();
  if (elements == 0) return tensor;
  at::Tensor flat = tensor.view(-1);
  const std::int64_t chunk = chunk_elements(device);
  const std::int64_t chunks = (elements + chunk - 1) / chunk;
  const auto fill = [&](std::int64_t c) {
    const std::int64_t first = c * chunk;
    const std::int64_t count = std::min(elements - first, chunk);
    flat.slice(0, first, first + count).copy_(values(first, count));
  };
  if (device.is_cpu() && chunks > 1) {
    at::parallel_for(0, chunks, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t c = begin; c < end; ++c) fill(c);
    });
  } else {
    for (std::int64_t c = 0; c < chunks; ++c) fill(c);
  }
  return tensor;
}

at::Tensor unit_uniform(std::uint64_t key, std::int64_t first, std::int64_t count,
                        c10::Device device) {
  if (device.is_cpu()) {
    at::Tensor units = at::empty({count}, at::TensorOptions().dtype(at::kDouble));
    double* out = units.data_ptr<double>();
    for (std::int64_t i = 0; i < count; ++i) {
      out[i] = unit_of(counter_word(key, static_cast<std::uint64_t>(first + i)));
    }
    return units;
  }
  return at::bitwise_right_shift(counter_words(key, first, count, device), 8)
      .to(at::kDouble)
      .mul_(kTwoToMinus24);
}

#if RKT_WITH_CUDA
bool gpu_draw_kernel_enabled() { return on_unless_set_to_zero(kGpuDrawKernelVariable); }
#endif

// On a CUDA device (CounterPath::kernel, or automatic unless RKT_GPU_DRAW_KERNEL=0), a law drawn by
// its kernel into one float32 tensor, on the current stream: `launch(out, count, stream)` queues
// it (counter_random_kernel.h). Nothing otherwise, where the chunked paths below run.
template <typename Launch>
std::optional<at::Tensor> drawn_by_kernel(at::IntArrayRef sizes, c10::Device device,
                                          CounterPath path, Launch launch) {
  if (path == CounterPath::kernel && !device.is_cuda()) {
    throw std::invalid_argument("the draw kernels run on a CUDA device, not on " + device.str());
  }
#if RKT_WITH_CUDA
  if (device.is_cuda() && (path == CounterPath::kernel ||
                           (path == CounterPath::automatic && gpu_draw_kernel_enabled()))) {
    at::Tensor tensor = at::empty(sizes, at::TensorOptions().dtype(at::kFloat).device(device));
    const c10::cuda::CUDAGuard on_its_device(tensor.device());
    const int status = launch(tensor.data_ptr<float>(), tensor.numel(),
                              c10::cuda::getCurrentCUDAStream().stream());
    if (status != 0) {
      throw std::runtime_error(std::string("drawing inputs on the GPU: ") +
                               cudaGetErrorString(static_cast<cudaError_t>(status)));
    }
    return tensor;
  }
#else
  (void)sizes;
  (void)launch;
  if (path == CounterPath::kernel)
    throw std::invalid_argument("the draw kernels need a CUDA build");
#endif
  return std::nullopt;
}

// On the CPU the laws whose arithmetic is exact run as one loop per chunk (one pass instead of
// six over memory); the rounding steps are the tensor path's, in the same order: a float64
// multiply, a float64 add, a rounding to float32. This file is compiled with -ffp-contract=off
// so that no compiler fuses the multiply and the add (framework/CMakeLists.txt).
template <typename Value>
at::Tensor cpu_chunk(std::uint64_t key, std::int64_t first, std::int64_t count,
                     c10::ScalarType dtype, Value value) {
  at::Tensor chunk = at::empty({count}, at::TensorOptions().dtype(dtype));
  AT_DISPATCH_ALL_TYPES(dtype, "counter_random_cpu_chunk", [&] {
    scalar_t* out = chunk.data_ptr<scalar_t>();
    for (std::int64_t i = 0; i < count; ++i) {
      out[i] = static_cast<scalar_t>(value(counter_word(key, static_cast<std::uint64_t>(first + i))));
    }
  });
  return chunk;
}

}  // namespace

std::uint64_t counter_key(std::uint64_t seed, std::uint64_t stream) {
  std::uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ULL);  // splitmix64's finaliser
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint32_t counter_word(std::uint64_t key, std::uint64_t index) {
  return counter_word_detail::word_of(key, index);
}

at::Tensor counter_words_by_tensor_ops(std::uint64_t key, std::int64_t first, std::int64_t count,
                                       c10::Device device) {
  const auto options = at::TensorOptions().dtype(at::kLong).device(device);
  at::Tensor index = at::arange(first, first + count, options);
  at::Tensor high = at::bitwise_right_shift(index, 32);
  at::Tensor x = index.bitwise_and_(kLow32);
  x.bitwise_xor_(static_cast<std::int64_t>(key & 0xFFFFFFFFULL));
  mix32_(x);
  x.bitwise_xor_(high).bitwise_xor_(static_cast<std::int64_t>(key >> 32));
  mix32_(x);
  return x;
}

at::Tensor counter_words(std::uint64_t key, std::int64_t first, std::int64_t count,
                         c10::Device device) {
  if (!device.is_cpu()) return counter_words_by_tensor_ops(key, first, count, device);
  at::Tensor words = at::empty({count}, at::TensorOptions().dtype(at::kLong));
  std::int64_t* out = words.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < count; ++i) {
    out[i] = counter_word(key, static_cast<std::uint64_t>(first + i));
  }
  return words;
}

at::Tensor counter_uniform(at::IntArrayRef sizes, std::uint64_t key, double low, double high,
                           c10::Device device, CounterPath path) {
  const double width = high - low;
  if (auto drawn =
          drawn_by_kernel(sizes, device, path, [&](float* out, std::int64_t count, void* stream) {
            return enqueue_counter_uniform(out, 0, count, key, width, low, stream);
          })) {
    return *drawn;
  }
  return filled(sizes, device, at::kFloat, [&](std::int64_t first, std::int64_t count) {
    if (device.is_cpu() && path == CounterPath::automatic) {
      return cpu_chunk(key, first, count, at::kFloat, [&](std::uint32_t word) {
        const double scaled = unit_of(word) * width;
        return static_cast<float>(scaled + low);
      });
    }
    return unit_uniform(key, first, count, device).mul_(width).add_(low);
  });
}

at::Tensor counter_normal(at::IntArrayRef sizes, std::uint64_t key, double mean, double stddev,
                          c10::Device device, CounterPath path) {
  const std::uint64_t radius_key = counter_key(key, 1), angle_key = counter_key(key, 2);
  if (auto drawn =
          drawn_by_kernel(sizes, device, path, [&](float* out, std::int64_t count, void* stream) {
            return enqueue_counter_normal(out, 0, count, radius_key, angle_key, stddev, mean,
                                          stream);
          })) {
    return *drawn;
  }
  return filled(sizes, device, at::kFloat, [&](std::int64_t first, std::int64_t count) {
    // Box-Muller: u1 in (0, 1] so that the logarithm is finite. Each step is the tensor path's;
    // only log, sqrt and cos may round differently (libm here, CUDA's on a GPU).
    if (device.is_cpu() && path == CounterPath::automatic) {
      at::Tensor chunk = at::empty({count}, at::TensorOptions().dtype(at::kFloat));
      float* out = chunk.data_ptr<float>();
      for (std::int64_t i = 0; i < count; ++i) {
        const auto index = static_cast<std::uint64_t>(first + i);
        const double u1 = unit_of(counter_word(radius_key, index)) + kTwoToMinus24;
        const double u2 = unit_of(counter_word(angle_key, index));
        const double radius = std::sqrt(std::log(u1) * -2.0);
        const double angle = std::cos(u2 * kTwoPi);
        const double z = radius * angle * stddev;
        out[i] = static_cast<float>(z + mean);
      }
      return chunk;
    }
    at::Tensor radius =
        unit_uniform(radius_key, first, count, device).add_(kTwoToMinus24).log_().mul_(-2.0).sqrt_();
    at::Tensor angle = unit_uniform(angle_key, first, count, device).mul_(kTwoPi).cos_();
    return radius.mul_(angle).mul_(stddev).add_(mean);
  });
}

at::Tensor counter_bernoulli(at::IntArrayRef sizes, std::uint64_t key, double probability,
                             c10::Device device, CounterPath path) {
  const double clamped = std::min(1.0, std::max(0.0, probability));
  const auto threshold = static_cast<std::int64_t>(std::llround(clamped * 4294967296.0));
  if (auto drawn =
          drawn_by_kernel(sizes, device, path, [&](float* out, std::int64_t count, void* stream) {
            return enqueue_counter_bernoulli(out, 0, count, key, threshold, stream);
          })) {
    return *drawn;
  }
  return filled(sizes, device, at::kFloat, [&](std::int64_t first, std::int64_t count) {
    if (device.is_cpu() && path == CounterPath::automatic) {
      return cpu_chunk(key, first, count, at::kFloat, [&](std::uint32_t word) {
        return static_cast<std::int64_t>(word) < threshold ? 1.0f : 0.0f;
      });
    }
    return counter_words(key, first, count, device).lt(threshold).to(at::kFloat);
  });
}

at::Tensor counter_integers(at::IntArrayRef sizes, std::uint64_t key, std::int64_t low,
                            std::int64_t high, c10::ScalarType dtype, c10::Device device,
                            CounterPath path) {
  const std::int64_t range = high - low;
  if (range <= 0 || range >= (std::int64_t{1} << 31)) {
    throw std::invalid_argument("integers in [" + std::to_string(low) + ", " +
                                std::to_string(high) + "): the range must hold 1 to 2^31 - 1 values");
  }
  return filled(sizes, device, dtype, [&](std::int64_t first, std::int64_t count) {
    // floor(word * range / 2^32): every value of the range, each within one part in 2^32 of
    // equally likely.
    if (device.is_cpu() && path == CounterPath::automatic) {
      return cpu_chunk(key, first, count, dtype, [&](std::uint32_t word) {
        return ((static_cast<std::int64_t>(word) * range) >> 32) + low;
      });
    }
    return at::bitwise_right_shift(counter_words(key, first, count, device).mul_(range), 32)
        .add_(low);
  });
}

}  // namespace rkt
