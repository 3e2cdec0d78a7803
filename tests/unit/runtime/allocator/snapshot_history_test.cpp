// snapshot() (segments, blocks, states, requested sizes, sites) and the memory history ring.
#include <gtest/gtest.h>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

TEST(Snapshot, SegmentsAndBlocksWithStatesAndRequestedSizes) {
  AllocatorHarness h;
  h.allocator->record_history(true, 100);
  h.site = {"model.py", 42, "forward"};
  std::uint64_t a = h.alloc(1000, 0);
  std::uint64_t b = h.alloc(3000, 0);
  h.allocator->record_stream(b, 4);
  h.fake->enqueue_work(4);
  h.free(b);
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 1u);
  const SegmentSnapshot& s = snap[0];
  EXPECT_EQ(s.address, a);
  EXPECT_EQ(s.total_size, 2 * kMiB);
  EXPECT_EQ(s.segment_type, "small");
  EXPECT_EQ(s.stream, 0);
  EXPECT_EQ(s.allocated_size, 1024u);
  EXPECT_EQ(s.active_size, 1024u + 3072u);
  EXPECT_EQ(s.requested_size, 4000u);
  EXPECT_FALSE(s.is_expandable);
  ASSERT_EQ(s.blocks.size(), 3u);
  EXPECT_EQ(s.blocks[0].state, "active_allocated");
  EXPECT_EQ(s.blocks[0].requested_size, 1000u);
  ASSERT_EQ(s.blocks[0].frames.size(), 1u);
  EXPECT_EQ(s.blocks[0].frames[0].filename, "model.py");
  EXPECT_EQ(s.blocks[0].frames[0].line, 42);
  EXPECT_EQ(s.blocks[1].state, "active_pending_free");
  EXPECT_EQ(s.blocks[1].address, b);
  EXPECT_EQ(s.blocks[2].state, "inactive");
  EXPECT_EQ(s.blocks[2].size, 2 * kMiB - 4096);
  EXPECT_EQ(h.violations(), "");
}

TEST(MemoryHistory, RecordsEveryActionWithSiteAndTime) {
  AllocatorHarness h;
  h.allocator->record_history(true, 100);
  h.site = {"train.py", 7, "step"};
  std::uint64_t a = h.alloc(100);
  h.free(a);
  h.allocator->empty_cache();
  auto trace = h.allocator->trace();
  std::vector<std::string> actions;
  for (const auto& e : trace) actions.push_back(e.action);
  EXPECT_EQ(actions, (std::vector<std::string>{"segment_alloc", "alloc", "free_requested",
                                               "free_completed", "segment_free"}));
  EXPECT_EQ(trace[1].addr, a);
  EXPECT_EQ(trace[1].size, 512u);
  ASSERT_EQ(trace[1].frames.size(), 1u);
  EXPECT_EQ(trace[1].frames[0].name, "step");
  EXPECT_EQ(trace[0].size, 2 * kMiB);
  EXPECT_GT(trace[0].time_us, 1600000000000000u);  // after 2020, in microseconds
  EXPECT_LE(trace[0].time_us, trace[4].time_us);
}

TEST(MemoryHistory, TheRingDropsTheOldestAndStoppingKeepsEntries) {
  AllocatorHarness h;
  h.allocator->record_history(true, 3);
  for (int i = 0; i < 3; ++i) h.free(h.alloc(512));  // segment_alloc + 3 x (alloc, free x2)
  auto trace = h.allocator->trace();
  ASSERT_EQ(trace.size(), 3u);
  EXPECT_EQ(trace[0].action, "alloc");
  EXPECT_EQ(trace[2].action, "free_completed");
  h.allocator->record_history(false, 0);
  h.alloc(512);
  EXPECT_EQ(h.allocator->trace().size(), 3u);
  h.allocator->record_history(true, 10);
  EXPECT_TRUE(h.allocator->trace().empty());
}

TEST(MemoryHistory, OffRecordsNothingAndKeepsNoSites) {
  AllocatorHarness h;
  h.alloc(512);
  EXPECT_TRUE(h.allocator->trace().empty());
  EXPECT_TRUE(h.allocator->snapshot()[0].blocks[0].frames.empty());
}

}  // namespace
}  // namespace accel::detail::alloc::testing
