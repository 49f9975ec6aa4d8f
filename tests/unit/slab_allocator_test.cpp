// The slab allocator under the GPU's shared buffers (framework/isolation/slab_allocator.h).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "framework/isolation/slab_allocator.h"

namespace rkt {
namespace {

TEST(SlabAllocator, CarvesAlignedRangesAndMergesThemBackOnRelease) {
  SlabAllocator slab(4 * kSlabCarveAlignmentBytes);
  const auto a = slab.allocate(1);
  const auto b = slab.allocate(kSlabCarveAlignmentBytes + 1);  // two carve units
  const auto c = slab.allocate(kSlabCarveAlignmentBytes);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, kSlabCarveAlignmentBytes);
  EXPECT_EQ(*c, 3 * kSlabCarveAlignmentBytes);
  EXPECT_FALSE(slab.allocate(1)) << "the slab is full";
  slab.release(*b, kSlabCarveAlignmentBytes + 1);
  EXPECT_EQ(slab.free_ranges(), 1u);
  slab.release(*a, 1);
  slab.release(*c, kSlabCarveAlignmentBytes);
  EXPECT_EQ(slab.free_ranges(), 1u) << "neighbours merge";
  EXPECT_EQ(slab.free_bytes(), slab.capacity_bytes());
  EXPECT_TRUE(slab.allocate(4 * kSlabCarveAlignmentBytes)) << "whole again";
}

TEST(SlabAllocator, RefusesARangeReleasedTwiceOrNeverGiven) {
  SlabAllocator slab(8 * kSlabCarveAlignmentBytes);
  const auto a = slab.allocate(100);
  ASSERT_TRUE(a);
  slab.release(*a, 100);
  EXPECT_THROW(slab.release(*a, 100), std::logic_error);
  EXPECT_THROW(slab.release(3, 100), std::logic_error);
  EXPECT_THROW(slab.release(8 * kSlabCarveAlignmentBytes, 1), std::logic_error);
}

TEST(SlabAllocator, RandomTrafficNeverOverlapsAndEndsWhole) {
  SlabAllocator slab(1 << 20);
  std::mt19937_64 random(7);
  struct Live { std::uint64_t offset, bytes; };
  std::vector<Live> live;
  for (int step = 0; step < 5000; ++step) {
    if (live.empty() || random() % 3 != 0) {
      const std::uint64_t bytes = 1 + random() % 40000;
      if (const auto offset = slab.allocate(bytes)) {
        for (const Live& other : live) {
          const bool apart = *offset + bytes <= other.offset || other.offset + other.bytes <= *offset;
          ASSERT_TRUE(apart) << "overlap at step " << step;
        }
        EXPECT_EQ(*offset % kSlabCarveAlignmentBytes, 0u);
        live.push_back({*offset, bytes});
      }
    } else {
      const std::size_t i = random() % live.size();
      slab.release(live[i].offset, live[i].bytes);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  for (const Live& range : live) slab.release(range.offset, range.bytes);
  EXPECT_EQ(slab.free_ranges(), 1u);
  EXPECT_EQ(slab.free_bytes(), slab.capacity_bytes());
}

}  // namespace
}  // namespace rkt
