// Segments, best fit, splitting and merging, empty_cache, bad pointers (PyTorch's
// policy), with exact byte and stat values and the allocator invariants after each step.
#include <gtest/gtest.h>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

TEST(DeviceAllocator, ZeroBytesReturnsZeroAndChangesNothing) {
  AllocatorHarness h;
  EXPECT_EQ(h.alloc(0), 0u);
  EXPECT_EQ(flatten(h.allocator->stats()), flatten(AllocatorHarness().allocator->stats()));
  EXPECT_EQ(h.fake->count("allocate"), 0u);
}

TEST(DeviceAllocator, SmallRequestSplitsA2MiBSegment) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(1000);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), 1024);
  EXPECT_EQ(h.stat("allocated_bytes.small_pool.current"), 1024);
  EXPECT_EQ(h.stat("requested_bytes.all.current"), 1000);
  EXPECT_EQ(h.stat("active_bytes.all.current"), 1024);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 2 * 1024 * 1024);
  EXPECT_EQ(h.stat("segment.small_pool.current"), 1);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 1);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), 2 * 1024 * 1024 - 1024);
  EXPECT_EQ(h.stat("num_device_alloc"), 1);
  EXPECT_EQ(h.violations(), "");
  h.free(a);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("active_bytes.all.freed"), 1024);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 2 * 1024 * 1024);
  EXPECT_EQ(h.violations(), "");
  EXPECT_EQ(h.alloc(700), a);  // cached, same stream: same address, no driver call
  EXPECT_EQ(h.fake->count("allocate"), 1u);
}

TEST(DeviceAllocator, BlocksAreNeverSharedAcrossStreams) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(4096, 0);
  h.free(a);
  std::uint64_t b = h.alloc(4096, 3);
  EXPECT_NE(b, a);
  EXPECT_EQ(h.stat("segment.all.current"), 2);
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, SegmentSizesFollowThePolicy) {
  AllocatorHarness h;
  h.alloc(kMiB + 1);  // large pool, 20 MiB segment
  EXPECT_EQ(h.stat("reserved_bytes.large_pool.current"), static_cast<std::int64_t>(20 * kMiB));
  h.alloc(12 * kMiB + 1, 1);  // own segment, rounded to 2 MiB (another stream: no reuse)
  EXPECT_EQ(h.stat("reserved_bytes.large_pool.current"), static_cast<std::int64_t>(34 * kMiB));
  EXPECT_EQ(h.stat("segment.large_pool.current"), 2);
  // A fitting cached remainder is used before a new segment: 19 MiB - 512 are free on 0.
  h.alloc(12 * kMiB + 1, 0);
  EXPECT_EQ(h.stat("segment.large_pool.current"), 2);
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, BestFitTakesTheSmallestThenTheLowestAddress) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(4096);
  std::uint64_t guard1 = h.alloc(512);
  std::uint64_t b = h.alloc(2048);
  std::uint64_t guard2 = h.alloc(512);
  std::uint64_t c = h.alloc(2048);
  std::uint64_t guard3 = h.alloc(512);
  h.free(a);
  h.free(c);
  h.free(b);
  EXPECT_EQ(h.alloc(1536), b);  // 2048 blocks b and c fit best; b is lower
  EXPECT_EQ(h.alloc(2048), c);
  EXPECT_EQ(h.alloc(3000), a);
  (void)guard1;
  (void)guard2;
  (void)guard3;
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, FreeMergesNeighboursAndCountsInactiveSplits) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(512);
  std::uint64_t b = h.alloc(512);
  std::uint64_t c = h.alloc(512);
  EXPECT_EQ(b, a + 512);
  EXPECT_EQ(c, b + 512);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 1);  // the tail
  h.free(b);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 2);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), static_cast<std::int64_t>(2 * kMiB - 1024));
  h.free(c);  // merges with b and the tail
  EXPECT_EQ(h.stat("inactive_split.all.current"), 1);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), static_cast<std::int64_t>(2 * kMiB - 512));
  EXPECT_EQ(h.violations(), "");
  h.free(a);  // the whole segment is one free block: not an inactive split
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), 0);
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  ASSERT_EQ(snap[0].blocks.size(), 1u);
  EXPECT_EQ(snap[0].blocks[0].size, 2 * kMiB);
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, ReuseOfASplitFreeBlockWithoutSplittingUncountsIt) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(512);
  std::uint64_t b = h.alloc(1024);
  h.alloc(512);
  h.free(b);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 2);
  EXPECT_EQ(h.alloc(1024), b);  // exact fit, no split
  EXPECT_EQ(h.stat("inactive_split.all.current"), 1);
  EXPECT_EQ(h.stat("inactive_split_bytes.all.current"), static_cast<std::int64_t>(2 * kMiB - 2048));
  (void)a;
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, OneKiBMovesActiveBytesByExactly1024) {
  AllocatorHarness h;
  h.allocator->reset_accumulated_stats();
  std::uint64_t x = h.alloc(1024);
  EXPECT_EQ(h.stat("active_bytes.all.current"), 1024);
  h.free(x);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("active_bytes.all.freed"), 1024);
  EXPECT_EQ(h.stat("max_split_size"), -1);
}

// A free the driver refuses leaves the segment cached, not stranded: once the driver works
// again, the next empty_cache releases it.
TEST(DeviceAllocator, ASegmentWhoseFreeFailsIsReleasedByTheNextEmptyCache) {
  AllocatorHarness h;
  h.free(h.alloc(12 * kMiB));
  h.fake->fail_call("deallocate", ErrorKind::kDriver);
  EXPECT_THROW(h.allocator->empty_cache(), Error);
  EXPECT_EQ(h.stat("segment.all.current"), 1);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(12 * kMiB));
  EXPECT_EQ(h.violations(), "");
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, EmptyCacheReleasesOnlyWholeSegments) {
  AllocatorHarness h;
  std::uint64_t small = h.alloc(512);
  std::uint64_t large = h.alloc(12 * kMiB);
  std::uint64_t kept = h.alloc(4 * kMiB);  // a 20 MiB segment, split and in use
  h.free(small);
  h.free(large);
  std::int64_t peak = h.stat("reserved_bytes.all.peak");
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(20 * kMiB));
  EXPECT_EQ(h.stat("reserved_bytes.all.peak"), peak);
  EXPECT_EQ(h.stat("segment.all.current"), 1);
  EXPECT_EQ(h.stat("num_device_free"), 2);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 1);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 1);
  EXPECT_EQ(h.fake->live_segments(), 1u);
  EXPECT_EQ(h.violations(), "");
  h.free(kept);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 2);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, AllocatedReturnsToItsValueAfterFreeingTheSameTensors) {
  AllocatorHarness h;
  std::uint64_t base = h.alloc(3000);
  std::int64_t before = h.stat("allocated_bytes.all.current");
  std::uint64_t x = h.alloc(5 * kMiB);
  std::uint64_t y = h.alloc(100);
  h.free(y);
  h.free(x);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), before);
  (void)base;
}

TEST(DeviceAllocator, BadPointersAreValueErrorsNamingThem) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(512);
  try {
    h.free(0x1234);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(),
                 "free: pointer 0x1234 was not allocated by the caching allocator of device 0");
  }
  h.free(a);
  try {
    h.free(a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_EQ(std::string(e.what()), "free: pointer " + hex_string(a) + " was already freed");
  }
  try {
    h.allocator->record_stream(a, 3);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_EQ(std::string(e.what()), "record_stream: pointer " + hex_string(a) +
                                         " is not in a live block of the caching allocator of "
                                         "device 0");
  }
  EXPECT_EQ(h.violations(), "");
}

TEST(DeviceAllocator, OwnsAnyAddressInsideALiveBlock) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(1024);
  EXPECT_TRUE(h.allocator->owns(a));
  EXPECT_TRUE(h.allocator->owns(a + 1023));
  EXPECT_FALSE(h.allocator->owns(a + 1024));  // the free tail
  h.free(a);
  EXPECT_FALSE(h.allocator->owns(a));
}

TEST(DeviceAllocator, RequestsOfOneExbibyteAreRefusedUpFront) {
  AllocatorHarness h;
  try {
    h.alloc(std::size_t{1} << 60);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("Tried to allocate more than 1EB memory"),
              std::string::npos);
  }
  EXPECT_EQ(h.fake->count("allocate"), 0u);
  EXPECT_EQ(h.stat("num_ooms"), 0);
}

TEST(DeviceAllocator, ResetsFollowTheSpec) {
  AllocatorHarness h;
  std::uint64_t a = h.alloc(4 * kMiB);
  h.free(a);
  h.allocator->reset_peak_stats();
  EXPECT_EQ(h.stat("allocated_bytes.all.peak"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.peak"), static_cast<std::int64_t>(20 * kMiB));
  h.allocator->reset_accumulated_stats();
  EXPECT_EQ(h.stat("allocated_bytes.all.allocated"), 0);
  EXPECT_EQ(h.stat("num_device_alloc"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(20 * kMiB));
  EXPECT_EQ(h.violations(/*no_accumulated_reset=*/false), "");
}

}  // namespace
}  // namespace accel::detail::alloc::testing
