// Shared buffers kept for reuse (framework/isolation/idle_buffer_pool.h): the bookkeeping, and
// the CPU's shared tensors that use it (the GPU's use the same path with CUDA IPC handles).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <algorithm>

#include "framework/isolation/idle_buffer_pool.h"
#include "framework/isolation/shared_tensors.h"

namespace rkt {
namespace {

char* at(std::uintptr_t address) { return reinterpret_cast<char*>(address); }

TEST(IdleBufferPool, HandsBackOnlyAnExactSizeMappedTheSameWayMostRecentFirst) {
  IdleBufferPool pool(1000);
  EXPECT_TRUE(pool.keep({1, at(0x1000), 100, false}).empty());
  EXPECT_TRUE(pool.keep({2, at(0x2000), 100, false}).empty());
  EXPECT_TRUE(pool.keep({3, at(0x3000), 100, true}).empty());
  EXPECT_EQ(pool.idle_bytes(), 300u);
  EXPECT_FALSE(pool.take(99, false));
  EXPECT_FALSE(pool.take(101, false));
  const auto guarded = pool.take(100, true);
  ASSERT_TRUE(guarded);
  EXPECT_EQ(guarded->id, 3u);
  EXPECT_FALSE(pool.take(100, true));
  EXPECT_EQ(pool.take(100, false)->id, 2u);
  EXPECT_EQ(pool.take(100, false)->id, 1u);
  EXPECT_FALSE(pool.take(100, false));
  EXPECT_EQ(pool.idle_bytes(), 0u);
  EXPECT_EQ(pool.size(), 0u);
}

TEST(IdleBufferPool, FreesTheOldestBeyondItsCapacityAndNeverKeepsWhatCannotFit) {
  IdleBufferPool pool(250);
  EXPECT_TRUE(pool.keep({1, at(0x1000), 100, false}).empty());
  EXPECT_TRUE(pool.keep({2, at(0x2000), 100, false}).empty());
  const auto freed = pool.keep({3, at(0x3000), 100, false});
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].id, 1u);
  EXPECT_EQ(pool.idle_bytes(), 200u);
  const auto too_large = pool.keep({4, at(0x4000), 251, false});
  ASSERT_EQ(too_large.size(), 1u);
  EXPECT_EQ(too_large[0].id, 4u);
  EXPECT_EQ(pool.idle_bytes(), 200u);
  const auto all = pool.take_all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, 2u);
  EXPECT_EQ(all[1].id, 3u);
  EXPECT_EQ(pool.idle_bytes(), 0u);
}

std::uint64_t buffer_id(const at::Tensor& tensor) { return locate_shared(tensor)->buffer.id; }

TEST(SharedBufferReuse, ATensorOfTheSameSizeGetsTheFreedBufferWithoutTheWorkerLettingGo) {
  take_released_buffers();
  at::Tensor first = allocate_shared_tensor({64, 33}, at::kFloat, Device::cpu);
  first.fill_(7);
  const std::uint64_t id = buffer_id(first);
  const void* data = first.data_ptr();
  first = at::Tensor();
  EXPECT_TRUE(take_released_buffers().empty()) << "kept buffers stay mapped by the worker";
  at::Tensor second = allocate_shared_tensor({33, 64}, at::kFloat, Device::cpu);
  EXPECT_EQ(buffer_id(second), id);
  EXPECT_EQ(second.data_ptr(), data);
  // A different size gets a buffer of its own.
  at::Tensor other = allocate_shared_tensor({64, 34}, at::kFloat, Device::cpu);
  EXPECT_NE(buffer_id(other), id);
}

TEST(SharedBufferReuse, ExactSizeBuffersAndAnotherMappingAreNeverReused) {
  take_released_buffers();
  BufferPlacement exact;
  exact.redzones = false;  // the sanitizer's: an allocation exactly the data
  at::Tensor sanitized = allocate_shared_tensor({128}, at::kFloat, Device::cpu, exact);
  const std::uint64_t sanitized_id = buffer_id(sanitized);
  sanitized = at::Tensor();
  const std::vector<std::uint64_t> released = take_released_buffers();
  EXPECT_NE(std::find(released.begin(), released.end(), sanitized_id), released.end());

  BufferPlacement guarded;
  guarded.inaccessible_page_after = true;
  at::Tensor plain = allocate_shared_tensor({1024}, at::kFloat, Device::cpu);
  const std::uint64_t plain_id = buffer_id(plain);
  plain = at::Tensor();
  at::Tensor with_page = allocate_shared_tensor({1024}, at::kFloat, Device::cpu, guarded);
  EXPECT_NE(buffer_id(with_page), plain_id);
}

// A judge that gives back its kept memory (another judge on its GPU ran short of it,
// framework/isolation/device_memory_return.h) frees every idle buffer: the worker is told to let
// go of each, and the next tensor of the same size gets a buffer of its own.
TEST(SharedBufferReuse, DroppingTheIdleBuffersReleasesEachAndReusesNone) {
  drop_idle_shared_buffers(Device::cpu);  // what earlier tests left idle
  take_released_buffers();
  at::Tensor kept = allocate_shared_tensor({256, 5}, at::kFloat, Device::cpu);
  const std::uint64_t id = buffer_id(kept);
  kept = at::Tensor();
  EXPECT_TRUE(take_released_buffers().empty()) << "kept idle, still mapped by the worker";
  EXPECT_GE(drop_idle_shared_buffers(Device::cpu), 256u * 5u * sizeof(float));
  const std::vector<std::uint64_t> released = take_released_buffers();
  EXPECT_NE(std::find(released.begin(), released.end(), id), released.end())
      << "the worker must be told to let go of the dropped buffer";
  EXPECT_EQ(drop_idle_shared_buffers(Device::cpu), 0u) << "nothing is left to drop";
  at::Tensor next = allocate_shared_tensor({256, 5}, at::kFloat, Device::cpu);
  EXPECT_NE(buffer_id(next), id);
  EXPECT_EQ(drop_idle_shared_buffers(Device::cuda), 0u) << "the CPU's buffers are not the GPU's";
}

}  // namespace
}  // namespace rkt
