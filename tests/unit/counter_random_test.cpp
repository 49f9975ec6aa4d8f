// The counter-based generator behind every drawn input (framework/inputs/counter_random.h): the
// tensor path agrees bit for bit with the reference loop (and on a GPU, the draw kernels with
// both), values depend on the element's index alone (not on chunks or threads), and each law has
// the distribution it names.
#include "framework/inputs/counter_random.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <stdexcept>

#include "framework/inputs/input_generation.h"
#include "framework/runtime/device_support.h"
#include "rkt/defaults.h"
#include "rkt/task.h"

namespace rkt {
namespace {

const c10::Device kCpu(c10::kCPU);

TEST(CounterRandom, TensorOperationsAgreeWithTheReferenceLoopBitForBit) {
  // The GPU path's arithmetic (int64 tensor operations) against the scalar definition, including
  // indices past 2^32 where the index's high half enters the mixer.
  const std::int64_t starts[] = {0, 12345, (std::int64_t{1} << 32) - 7};
  const std::uint64_t keys[] = {0ULL, 1ULL, 0xDEADBEEFCAFEF00DULL, counter_key(42, 3)};
  for (const std::uint64_t key : keys) {
    for (const std::int64_t first : starts) {
      const at::Tensor by_ops = counter_words_by_tensor_ops(key, first, 4099, kCpu);
      const at::Tensor by_loop = counter_words(key, first, 4099, kCpu);
      ASSERT_TRUE(at::equal(by_ops, by_loop)) << "key " << key << ", first " << first;
      for (std::int64_t i : {std::int64_t{0}, std::int64_t{17}, std::int64_t{4098}}) {
        EXPECT_EQ(by_loop[i].item<std::int64_t>(),
                  counter_word(key, static_cast<std::uint64_t>(first + i)));
      }
    }
  }
}

TEST(CounterRandom, TheCpuLoopsAndTheGpuTensorPathGiveTheSameBits) {
  // The CPU computes the exact laws in one loop per chunk; a GPU runs tensor operations. Both
  // paths run here on the CPU and must agree bit for bit.
  const std::int64_t n = defaults::kInputDrawChunkElements + 777;
  const std::uint64_t key = counter_key(99, 4);
  EXPECT_TRUE(at::equal(counter_uniform({n}, key, -0.3, 7.1, kCpu),
                        counter_uniform({n}, key, -0.3, 7.1, kCpu, CounterPath::tensor_ops)));
  EXPECT_TRUE(at::equal(counter_bernoulli({n}, key, 0.37, kCpu),
                        counter_bernoulli({n}, key, 0.37, kCpu, CounterPath::tensor_ops)));
  for (const auto dtype : {at::kLong, at::kInt}) {
    EXPECT_TRUE(at::equal(counter_integers({n}, key, -5, 32000, dtype, kCpu),
                          counter_integers({n}, key, -5, 32000, dtype, kCpu, CounterPath::tensor_ops)));
  }
}

TEST(CounterRandom, ValuesDependOnTheIndexAloneNotOnChunksOrThreads) {
  const std::int64_t elements = defaults::kInputDrawChunkElements * 2 + 1001;  // three chunks
  const std::uint64_t key = counter_key(7, 0);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const at::Tensor one_thread = counter_uniform({elements}, key, -2.0, 3.0, kCpu);
  at::set_num_threads(std::max(2, threads));
  const at::Tensor several = counter_uniform({elements}, key, -2.0, 3.0, kCpu);
  at::set_num_threads(threads);
  ASSERT_TRUE(at::equal(one_thread, several));
  // Element i is its word's value, wherever the chunk boundaries fall.
  for (const std::int64_t i : {std::int64_t{0}, defaults::kInputDrawChunkElements - 1,
                               defaults::kInputDrawChunkElements, elements - 1}) {
    const double unit = static_cast<double>(counter_word(key, static_cast<std::uint64_t>(i)) >> 8) /
                        16777216.0;
    EXPECT_EQ(several[i].item<float>(), static_cast<float>(unit * 5.0 + -2.0)) << "element " << i;
  }
  // A larger tensor starts with a smaller one's values (shape-independent streams).
  const at::Tensor prefix = counter_uniform({1000}, key, -2.0, 3.0, kCpu);
  EXPECT_TRUE(at::equal(prefix, several.slice(0, 0, 1000)));
}

TEST(CounterRandom, EachLawHasItsDistribution) {
  const std::int64_t n = 1 << 20;
  const at::Tensor uniform = counter_uniform({n}, counter_key(1, 0), 2.0, 4.0, kCpu);
  EXPECT_GE(uniform.min().item<float>(), 2.0f);
  EXPECT_LT(uniform.max().item<float>(), 4.0f);
  EXPECT_NEAR(uniform.mean().item<double>(), 3.0, 0.01);
  EXPECT_NEAR(uniform.std().item<double>(), 2.0 / std::sqrt(12.0), 0.01);

  const at::Tensor normal = counter_normal({n}, counter_key(2, 0), 1.5, 2.0, kCpu);
  EXPECT_TRUE(at::isfinite(normal).all().item<bool>());
  EXPECT_NEAR(normal.mean().item<double>(), 1.5, 0.01);
  EXPECT_NEAR(normal.std().item<double>(), 2.0, 0.01);
  // Tails: P(|z| > 3) = 0.0027 for a normal law.
  const double tail = (normal - 1.5).abs().gt(6.0).to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(tail, 0.0027, 0.0005);

  const at::Tensor mask = counter_bernoulli({n}, counter_key(3, 0), 0.8, kCpu);
  EXPECT_TRUE(at::logical_or(mask.eq(0), mask.eq(1)).all().item<bool>());
  EXPECT_NEAR(mask.mean().item<double>(), 0.8, 0.002);

  const at::Tensor classes = counter_integers({n}, counter_key(4, 0), -3, 1000, at::kLong, kCpu);
  EXPECT_EQ(classes.min().item<std::int64_t>(), -3);
  EXPECT_EQ(classes.max().item<std::int64_t>(), 999);
  EXPECT_EQ(std::get<0>(at::_unique(classes)).numel(), 1003);
  EXPECT_THROW(counter_integers({4}, 1, 5, 5, at::kLong, kCpu), std::invalid_argument);
}

TEST(CounterRandom, SeedsAndStreamsGiveUnrelatedValues) {
  const at::Tensor a = counter_uniform({4096}, counter_key(5, 0), 0, 1, kCpu);
  const at::Tensor b = counter_uniform({4096}, counter_key(6, 0), 0, 1, kCpu);
  const at::Tensor c = counter_uniform({4096}, counter_key(5, 1), 0, 1, kCpu);
  EXPECT_TRUE(at::equal(a, counter_uniform({4096}, counter_key(5, 0), 0, 1, kCpu)));
  for (const at::Tensor& other : {b, c}) {
    EXPECT_LT(a.eq(other).sum().item<std::int64_t>(), 8);
    const double correlation = at::corrcoef(at::stack({a, other})).index({0, 1}).item<double>();
    EXPECT_LT(std::abs(correlation), 0.06);
  }
}

TEST(CounterRandom, TaskInputsAreDrawnPerInputStream) {
  // Each input draws from its own stream: more rows of x leave weight and bias as they were, and
  // x's first rows too (a row-major tensor's element index does not depend on the row count).
  const TaskSpec* layernorm = find_task("layernorm");
  ASSERT_NE(layernorm, nullptr);
  const Dims small = layernorm->small_dims();
  Dims more_rows = small;
  more_rows.at("B") += 5;
  const auto first = generate_inputs(*layernorm, small, 11);
  const auto wider = generate_inputs(*layernorm, more_rows, 11, kCpu);
  EXPECT_TRUE(at::equal(first[0], wider[0].slice(0, 0, small.at("B"))));
  EXPECT_TRUE(at::equal(first[1], wider[1]));
  EXPECT_TRUE(at::equal(first[2], wider[2]));
  const auto other_seed = generate_inputs(*layernorm, small, 12);
  EXPECT_FALSE(at::equal(first[0], other_seed[0]));
}

TEST(CounterRandom, TheDrawKernelsAreRefusedOffACudaDevice) {
  EXPECT_THROW(counter_uniform({4}, 1, 0.0, 1.0, kCpu, CounterPath::kernel), std::invalid_argument);
  EXPECT_THROW(counter_normal({4}, 1, 0.0, 1.0, kCpu, CounterPath::kernel), std::invalid_argument);
  EXPECT_THROW(counter_bernoulli({4}, 1, 0.5, kCpu, CounterPath::kernel), std::invalid_argument);
}

TEST(CounterRandom, AGpuDrawsTheCpuValues) {
  if (!device_available(Device::cuda)) {
    GTEST_SKIP() << "needs a CUDA device: " << device_unavailable_reason(Device::cuda);
  }
  const c10::Device gpu(c10::kCUDA);
  const std::int64_t n = defaults::kDeviceInputDrawChunkElements + 4097;  // two GPU chunks
  const std::uint64_t key = counter_key(2026, 12);
  ASSERT_TRUE(at::equal(counter_words(key, (std::int64_t{1} << 32) - 100, 4096, gpu).cpu(),
                        counter_words(key, (std::int64_t{1} << 32) - 100, 4096, kCpu)));
  EXPECT_TRUE(at::equal(counter_uniform({n}, key, -1.5, 2.5, gpu).cpu(),
                        counter_uniform({n}, key, -1.5, 2.5, kCpu)));
  EXPECT_TRUE(at::equal(counter_bernoulli({n}, key, 0.3, gpu).cpu(),
                        counter_bernoulli({n}, key, 0.3, kCpu)));
  EXPECT_TRUE(at::equal(counter_integers({n}, key, 0, 50257, at::kLong, gpu).cpu(),
                        counter_integers({n}, key, 0, 50257, at::kLong, kCpu)));
  // The normal law goes through float64 log, sqrt and cos, whose last bit may differ between
  // libm and CUDA: count the float32 elements that differ, and by how much.
  const at::Tensor on_gpu = counter_normal({n}, key, 0.0, 1.0, gpu).cpu();
  const at::Tensor on_cpu = counter_normal({n}, key, 0.0, 1.0, kCpu);
  const std::int64_t differing = on_gpu.ne(on_cpu).sum().item<std::int64_t>();
  const double largest = (on_gpu - on_cpu).abs().max().item<double>();
  std::cout << "[ normal law ] " << differing << " of " << n
            << " float32 elements differ between the GPU and the CPU (largest difference "
            << largest << ")\n";
  EXPECT_LE(differing, n / 100000);
  EXPECT_LE(largest, 1e-6);
  // The draw kernels (counter_random_kernel.h) against the GPU's tensor path, the reference
  // above: the same bits, every float64 step rounded the same way.
  EXPECT_TRUE(at::equal(counter_uniform({n}, key, -1.5, 2.5, gpu, CounterPath::kernel),
                        counter_uniform({n}, key, -1.5, 2.5, gpu, CounterPath::tensor_ops)));
  EXPECT_TRUE(at::equal(counter_bernoulli({n}, key, 0.3, gpu, CounterPath::kernel),
                        counter_bernoulli({n}, key, 0.3, gpu, CounterPath::tensor_ops)));
  const at::Tensor by_kernel = counter_normal({n}, key, 0.0, 1.0, gpu, CounterPath::kernel);
  const at::Tensor by_tensor_ops = counter_normal({n}, key, 0.0, 1.0, gpu, CounterPath::tensor_ops);
  const std::int64_t kernel_differing = by_kernel.ne(by_tensor_ops).sum().item<std::int64_t>();
  std::cout << "[ normal law ] " << kernel_differing << " of " << n
            << " float32 elements differ between the GPU's kernel and its tensor operations\n";
  EXPECT_LE(kernel_differing, n / 100000);
  // An odd size and a 2-d shape: the kernel's grid-stride tail.
  EXPECT_TRUE(at::equal(counter_uniform({37, 301}, key, 0.0, 1.0, gpu, CounterPath::kernel).cpu(),
                        counter_uniform({37, 301}, key, 0.0, 1.0, kCpu)));
}

}  // namespace
}  // namespace rkt
