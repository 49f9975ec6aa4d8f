// Checks row_cache.cuh on the CPU (through cuda_emulation.h): for every row length the row
// kernels accept, the chosen shape covers the row within the block limits, and the slot layout
// gives every element of the row to exactly one (thread, item), in a coalesced order; the
// validity and column helpers agree with it; loads fill the padding and stores write only the row.
#define RKT_CUDA_EMULATION 1
#include "cuda_emulation.h"
// The emulated header follows the emulation layer on purpose.
#include <gtest/gtest.h>

#include <vector>

#include "row_cache.cuh"

namespace {

namespace ck = rkt::cuda_kernels;

TEST(RowCacheShape, CoversEveryRowLengthWithinTheBlockLimits) {
  for (std::int64_t n = 1; n <= ck::kMaxCachedRow; ++n) {
    for (const bool vectorizable : {false, true}) {
      const ck::RowCacheShape s = ck::choose_row_cache(n, vectorizable);
      ASSERT_GE(std::int64_t{s.threads} * s.items, n) << "n=" << n;
      ASSERT_EQ(s.threads % 32, 0) << "n=" << n;
      ASSERT_GE(s.threads, 32) << "n=" << n;
      ASSERT_LE(s.threads, s.items == ck::kMaxRowCacheItems ? ck::kMaxRowCacheThreads
                                                            : ck::kPreferredRowCacheThreads)
          << "n=" << n;
      ASSERT_EQ(s.width, vectorizable && n % 4 == 0 ? 4 : 1) << "n=" << n;
    }
  }
}

// Runs load_row_cache / store_row_cache as every thread of one block of shape s over a row of n.
template <int kWidth, int kItems>
void check_layout(std::int64_t n, int threads) {
  SCOPED_TRACE("n=" + std::to_string(n) + " width=" + std::to_string(kWidth) +
               " items=" + std::to_string(kItems) + " threads=" + std::to_string(threads));
  std::vector<float> row(n);  // operator new: 16-byte aligned, as the float4 loads want
  for (std::int64_t i = 0; i < n; ++i) row[i] = static_cast<float>(i);
  std::vector<float> out(n, -1.0f);
  std::vector<int> seen(n, 0);
  blockDim = EmulatedDim3{static_cast<unsigned>(threads), 1, 1};
  for (int t = 0; t < threads; ++t) {
    threadIdx = EmulatedDim3{static_cast<unsigned>(t), 0, 0};
    float v[kItems];
    ck::load_row_cache<kWidth, kItems>(row.data(), static_cast<int>(n), v, -7.0f);
    for (int j = 0; j < kItems; ++j) {
      const int column = ck::row_cache_column<kWidth>(j);
      const bool valid = ck::row_cache_valid<kWidth>(j, static_cast<int>(n));
      ASSERT_EQ(valid, column < n) << "thread " << t << " item " << j;
      if (valid) {
        ASSERT_EQ(v[j], static_cast<float>(column));
        ++seen[column];
      } else {
        ASSERT_EQ(v[j], -7.0f);
      }
    }
    ck::store_row_cache<kWidth, kItems>(out.data(), static_cast<int>(n), v);
  }
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(seen[i], 1) << "element " << i;
    ASSERT_EQ(out[i], static_cast<float>(i)) << "element " << i;
  }
  // Coalesced: slot 0 of consecutive threads are consecutive vectors.
  threadIdx = EmulatedDim3{1, 0, 0};
  EXPECT_EQ(ck::row_slot_start<kWidth>(0), kWidth);
}

// Checks the shape choose_row_cache gives for n, with the dispatch the kernels use.
void check_dispatched(std::int64_t n, bool vectorizable) {
  const ck::RowCacheShape s = ck::choose_row_cache(n, vectorizable);
  ck::dispatch_row_cache(s, [&](auto width, auto items) {
    check_layout<decltype(width)::value, decltype(items)::value>(n, s.threads);
  });
}

TEST(RowCacheLayout, EveryElementOnceForTypicalAndEdgeLengths) {
  for (const std::int64_t n :
       {1,    2,    3,    4,    5,    31,   32,   33,    100,   300,   1023,
        1024, 1025, 4095, 4096, 8191, 8192, 8193, 16384, 20000, 32767, 32768}) {
    check_dispatched(n, false);
    check_dispatched(n, true);
  }
}

}  // namespace
