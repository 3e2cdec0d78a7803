// expandable_segments:True (Note [Expandable segments]): one address range per pool and
// stream, mapped page by page on demand; empty_cache unmaps the whole pages of every free
// block, wherever it lies, and a later allocation maps the hole again; reserved bytes and
// num_device_alloc/free move per page, the segment count does not.
#include <gtest/gtest.h>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

AllocatorConfig expandable() {
  AllocatorConfig c;
  c.expandable_segments = true;
  return c;
}

TEST(ExpandableSegments, GrowPageByPageInOneAddressRange) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, expandable());
  h.allocator->record_history(true, 100);
  std::uint64_t a = h.alloc(3 * kMiB);
  EXPECT_EQ(h.stat("reserved_bytes.large_pool.current"), static_cast<std::int64_t>(4 * kMiB));
  EXPECT_EQ(h.stat("num_device_alloc"), 2);
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.fake->count("reserve_address_range"), 1u);
  EXPECT_EQ(h.fake->mapped_bytes(), 4 * kMiB);
  std::uint64_t b = h.alloc(3 * kMiB);
  EXPECT_EQ(b, a + 3 * kMiB);  // grows the free 1 MiB tail by one page
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(6 * kMiB));
  EXPECT_EQ(h.stat("num_device_alloc"), 3);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);  // not tracked for expandable ones
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_TRUE(snap[0].is_expandable);
  EXPECT_EQ(snap[0].total_size, 6 * kMiB);
  EXPECT_EQ(h.violations(), "");

  h.free(b);
  h.free(a);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("num_device_free"), 3);
  EXPECT_EQ(h.fake->mapped_bytes(), 0u);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  EXPECT_TRUE(h.allocator->snapshot().empty());
  EXPECT_EQ(h.violations(), "");
  std::vector<std::string> actions;
  for (const auto& e : h.allocator->trace()) actions.push_back(e.action);
  EXPECT_EQ(actions, (std::vector<std::string>{"segment_map", "alloc", "segment_map", "alloc",
                                               "free_requested", "free_completed",
                                               "free_requested", "free_completed",
                                               "segment_unmap"}));
  // The range stays reserved: growing again maps into it without a new reservation.
  EXPECT_EQ(h.alloc(3 * kMiB), a);
  EXPECT_EQ(h.fake->count("reserve_address_range"), 1u);
}

TEST(ExpandableSegments, EmptyCacheUnmapsOnlyTheFreeTailsWholePages) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, expandable());
  std::uint64_t a = h.alloc(3 * kMiB);
  std::uint64_t b = h.alloc(3 * kMiB);
  h.free(b);
  h.allocator->empty_cache();  // tail free from 3 MiB: the page [4, 6) MiB goes
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(4 * kMiB));
  EXPECT_EQ(h.fake->mapped_bytes(), 4 * kMiB);
  EXPECT_EQ(h.violations(), "");
  (void)a;
}

TEST(ExpandableSegments, EmptyCacheUnmapsAFreeHoleInTheMiddleAndItIsMappedAgain) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, expandable());
  h.allocator->record_history(true, 100);
  std::uint64_t a = h.alloc(2 * kMiB);
  std::uint64_t b = h.alloc(4 * kMiB);
  std::uint64_t c = h.alloc(2 * kMiB);
  EXPECT_EQ(b, a + 2 * kMiB);
  EXPECT_EQ(c, a + 6 * kMiB);
  EXPECT_EQ(h.stat("num_device_alloc"), 4);
  h.free(b);
  h.allocator->empty_cache();  // [2, 6) MiB is free and page aligned: both pages go
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(4 * kMiB));
  EXPECT_EQ(h.stat("num_device_free"), 2);
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.fake->mapped_bytes(), 4 * kMiB);
  EXPECT_EQ(h.fake->used_bytes(), 4 * kMiB);
  auto trace = h.allocator->trace();
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.back().action, "segment_unmap");
  EXPECT_EQ(trace.back().addr, a + 2 * kMiB);
  EXPECT_EQ(trace.back().size, 4 * kMiB);
  // The snapshot shows the two mapped runs on either side of the hole.
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].address, a);
  EXPECT_EQ(snap[0].total_size, 2 * kMiB);
  EXPECT_EQ(snap[0].allocated_size, 2 * kMiB);
  EXPECT_EQ(snap[1].address, c);
  EXPECT_EQ(snap[1].total_size, 2 * kMiB);
  EXPECT_TRUE(h.allocator->owns(a));
  EXPECT_FALSE(h.allocator->owns(a + 3 * kMiB));  // unmapped: nobody's memory
  EXPECT_EQ(h.violations(), "");

  // The hole is reused first: mapped again, no new reservation.
  EXPECT_EQ(h.alloc(4 * kMiB), b);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(8 * kMiB));
  EXPECT_EQ(h.stat("num_device_alloc"), 6);
  EXPECT_EQ(h.fake->count("reserve_address_range"), 1u);
  EXPECT_EQ(h.fake->mapped_bytes(), 8 * kMiB);
  trace = h.allocator->trace();
  ASSERT_GE(trace.size(), 2u);
  EXPECT_EQ(trace[trace.size() - 2].action, "segment_map");
  EXPECT_EQ(trace[trace.size() - 2].addr, b);
  EXPECT_EQ(trace[trace.size() - 2].size, 4 * kMiB);
  snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].total_size, 8 * kMiB);
  EXPECT_EQ(snap[0].blocks.size(), 3u);
  EXPECT_EQ(h.violations(), "");
}

TEST(ExpandableSegments, APartlyMappedFreeBlockKeepsItsMappedHeadAndGrowsThroughTheHole) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, expandable());
  std::uint64_t a = h.alloc(3 * kMiB);  // [0, 3) MiB; [3, 4) stays free and mapped
  std::uint64_t b = h.alloc(3 * kMiB);  // [3, 6): maps the page [4, 6)
  std::uint64_t c = h.alloc(2 * kMiB);  // [6, 8)
  EXPECT_EQ(b, a + 3 * kMiB);
  h.free(b);
  h.allocator->empty_cache();  // [3, 6) is free: only the whole page [4, 6) goes
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(6 * kMiB));
  EXPECT_EQ(h.stat("num_device_free"), 1);
  EXPECT_EQ(h.fake->mapped_bytes(), 6 * kMiB);
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].total_size, 4 * kMiB);
  ASSERT_EQ(snap[0].blocks.size(), 2u);
  EXPECT_EQ(snap[0].blocks[1].address, b);
  EXPECT_EQ(snap[0].blocks[1].size, 1 * kMiB);
  EXPECT_EQ(snap[0].blocks[1].state, "inactive");
  EXPECT_EQ(snap[1].address, c);
  EXPECT_EQ(h.violations(), "");
  // 3 MiB: the mapped 1 MiB head plus the hole's page, mapped again, joined into one block.
  EXPECT_EQ(h.alloc(3 * kMiB), b);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(8 * kMiB));
  EXPECT_EQ(h.stat("num_device_alloc"), 5);
  snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].blocks.size(), 3u);
  EXPECT_EQ(h.violations(), "");
}

TEST(ExpandableSegments, TheOomFlushUnmapsAHoleForAnotherStream) {
  AllocatorHarness h({.capacity_bytes = 8 * kMiB}, expandable());
  std::uint64_t a = h.alloc(2 * kMiB);
  std::uint64_t b = h.alloc(4 * kMiB);
  h.alloc(2 * kMiB);
  h.free(b);
  // Stream 1 has its own range; the device is full until the hole of stream 0 goes back.
  EXPECT_NE(h.alloc(4 * kMiB, 1), 0u);
  EXPECT_EQ(h.stat("num_alloc_retries"), 1);
  EXPECT_EQ(h.stat("num_ooms"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(8 * kMiB));
  EXPECT_EQ(h.stat("num_device_free"), 2);
  EXPECT_EQ(h.fake->used_bytes(), 8 * kMiB);
  EXPECT_EQ(h.violations(), "");
  (void)a;
}

TEST(ExpandableSegments, AFailedGrowUnmapsWhatItMappedAndRaisesOom) {
  AllocatorHarness h({.capacity_bytes = 4 * kMiB}, expandable());
  EXPECT_THROW(h.alloc(5 * kMiB), OutOfMemoryError);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  EXPECT_EQ(h.fake->mapped_bytes(), 0u);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("num_ooms"), 1);
  EXPECT_EQ(h.violations(), "");
  EXPECT_NE(h.alloc(3 * kMiB), 0u);
}

TEST(ExpandableSegments, OnePerPoolAndStream) {
  AllocatorHarness h({}, expandable());
  h.alloc(512, 0);
  h.alloc(3 * kMiB, 0);
  h.alloc(3 * kMiB, 1);
  EXPECT_EQ(h.fake->count("reserve_address_range"), 3u);
  EXPECT_EQ(h.stat("reserved_bytes.small_pool.current"), static_cast<std::int64_t>(2 * kMiB));
  EXPECT_EQ(h.violations(), "");
}

TEST(ExpandableSegments, WithoutVirtualMemoryTheSettingIsAConfigError) {
  AllocatorHarness h({.device = 1, .virtual_memory = false}, expandable());
  try {
    h.alloc(512);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_STREQ(e.what(),
                 "expandable_segments:True: the device 1 backend has no virtual memory API");
  }
  EXPECT_EQ(h.fake->count("allocate"), 0u);
}

// A reservation that fails leaves no half-made segment behind: the retry chain's release
// path then runs over every expandable segment (a null entry there crashed it), and the
// retry reserves a range as if nothing had happened.
TEST(ExpandableSegments, AFailedReservationLeavesNothingBehind) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, expandable());
  h.fake->fail_call("reserve_address_range", ErrorKind::kOutOfMemory);
  std::uint64_t a = h.alloc(3 * kMiB);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(h.stat("num_alloc_retries"), 1);
  EXPECT_EQ(h.fake->count("reserve_address_range"), 2u);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(4 * kMiB));
  h.free(a);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_TRUE(h.allocator->snapshot().empty());
  EXPECT_EQ(h.violations(), "");
}

}  // namespace
}  // namespace accel::detail::alloc::testing
