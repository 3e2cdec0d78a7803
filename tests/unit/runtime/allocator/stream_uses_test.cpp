// record_stream and end-of-life events (PyTorch's recordStream): a block used on another stream is
// not reused until the work queued there at free time completes; events are processed per
// stream in order at allocation; empty_cache waits for all of them.
#include <gtest/gtest.h>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

TEST(StreamUses, BlockIsReusedOnlyAfterTheRecordedStreamsWorkCompletes) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 0);
  h.allocator->record_stream(x, 5);
  h.fake->enqueue_work(5);
  h.free(x);
  EXPECT_EQ(h.fake->count("record_event"), 1u);
  EXPECT_EQ(h.stat("allocation.all.current"), 0);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), 0);
  EXPECT_EQ(h.stat("active.all.current"), 1);
  EXPECT_EQ(h.stat("active_bytes.all.current"), 4096);
  auto snap = h.allocator->snapshot();
  EXPECT_EQ(snap[0].blocks[0].state, "active_pending_free");
  EXPECT_EQ(h.violations(), "");

  std::uint64_t y = h.alloc(4096, 0);
  EXPECT_NE(y, x);
  h.free(y);
  h.fake->complete_work(5);
  std::uint64_t z = h.alloc(4096, 0);
  EXPECT_EQ(z, x);
  EXPECT_EQ(h.fake->live_events(), 0u);
  EXPECT_EQ(h.violations(), "");
}

TEST(StreamUses, AShiftedViewProtectsTheWholeBlock) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 0);
  h.allocator->record_stream(x + 1000, 5);
  h.fake->enqueue_work(5);
  h.free(x);
  EXPECT_NE(h.alloc(4096, 0), x);
}

TEST(StreamUses, TheAllocationStreamItselfRecordsNothing) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 2);
  h.allocator->record_stream(x, 2);
  h.free(x);
  EXPECT_EQ(h.fake->count("record_event"), 0u);
  EXPECT_EQ(h.alloc(4096, 2), x);
}

TEST(StreamUses, OneEventPerRecordedStream) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 0);
  h.allocator->record_stream(x, 5);
  h.allocator->record_stream(x, 6);
  h.allocator->record_stream(x, 5);
  h.fake->enqueue_work(5);
  h.fake->enqueue_work(6);
  h.free(x);
  EXPECT_EQ(h.fake->count("record_event"), 2u);
  h.fake->complete_work(5);
  EXPECT_NE(h.alloc(4096, 0), x);  // stream 6 still busy
  h.fake->complete_work(6);
  EXPECT_EQ(h.alloc(4096, 0), x);
  EXPECT_EQ(h.violations(), "");
}

TEST(StreamUses, EventsOfOneStreamAreProcessedInOrder) {
  AllocatorHarness h({.log_calls = true});
  std::uint64_t a = h.alloc(4096, 0);
  std::uint64_t b = h.alloc(8192, 0);
  h.allocator->record_stream(a, 5);
  h.allocator->record_stream(b, 5);
  h.fake->enqueue_work(5);
  h.free(a);  // event 1 waits for the first unit of work
  h.fake->enqueue_work(5);
  h.free(b);  // event 2 for both
  h.fake->clear_calls();
  h.alloc(512, 1);  // processes events: the first is not ready, so the second is not asked
  EXPECT_EQ(h.fake->count("query_event"), 1u);
  h.fake->complete_work(5);
  h.fake->clear_calls();
  h.alloc(512, 1);
  EXPECT_EQ(h.fake->count("query_event"), 3u);
  EXPECT_EQ(h.stat("active.all.current"), 2);  // the two 512-byte blocks on stream 1
  EXPECT_EQ(h.violations(), "");
}

TEST(StreamUses, EmptyCacheWaitsForEveryEventThenReleases) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 0);
  h.allocator->record_stream(x, 5);
  h.fake->enqueue_work(5);
  h.free(x);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("num_sync_all_streams"), 1);
  EXPECT_EQ(h.fake->count("synchronize_event"), 1u);
  EXPECT_EQ(h.stat("active.all.current"), 0);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(h.fake->live_events(), 0u);
  EXPECT_EQ(h.violations(), "");
}

TEST(StreamUses, EventsOfBlocksFreedDuringCaptureWaitForTheCaptureToEnd) {
  AllocatorHarness h;
  std::uint64_t x = h.alloc(4096, 0);
  h.allocator->record_stream(x, 5);
  h.allocator->begin_allocate_to_pool({1, 0}, 9);
  h.free(x);
  EXPECT_EQ(h.fake->count("record_event"), 0u);
  EXPECT_EQ(h.stat("active.all.current"), 1);
  h.allocator->end_allocate_to_pool({1, 0});
  h.fake->enqueue_work(5);
  h.alloc(512, 1);  // records the deferred event now
  EXPECT_EQ(h.fake->count("record_event"), 1u);
  EXPECT_NE(h.alloc(4096, 0), x);
  h.fake->complete_work(5);
  EXPECT_EQ(h.alloc(4096, 0), x);
  EXPECT_EQ(h.violations(), "");
}

}  // namespace
}  // namespace accel::detail::alloc::testing
