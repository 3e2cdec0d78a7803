// Graph private pools (as PyTorch's CUDACachingAllocator.cpp has them): allocations on a capturing
// stream come from the pool; what is freed into the pool serves only the pool; nothing goes back to
// the driver during capture; a pool is released once every user has released it.
#include <gtest/gtest.h>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

constexpr MempoolId kPool{1, 0};

TEST(PrivatePools, AllocationsOnTheCapturingStreamComeFromThePool) {
  AllocatorHarness h;
  EXPECT_FALSE(h.allocator->capture_underway());
  h.allocator->begin_allocate_to_pool(kPool, 7);
  EXPECT_TRUE(h.allocator->capture_underway());
  std::uint64_t in_pool = h.alloc(1000, 7);
  std::uint64_t eager = h.alloc(1000, 0);
  h.allocator->end_allocate_to_pool(kPool);
  EXPECT_FALSE(h.allocator->capture_underway());
  auto snap = h.allocator->snapshot();
  ASSERT_EQ(snap.size(), 2u);
  for (const auto& s : snap) {
    bool pool_segment = s.blocks[0].address == in_pool;
    EXPECT_EQ(s.segment_pool_id, (pool_segment ? kPool : MempoolId{0, 0}));
    EXPECT_EQ(s.blocks[0].address, pool_segment ? in_pool : eager);
  }
  EXPECT_EQ(h.violations(), "");
}

TEST(PrivatePools, AFreeDuringCaptureServesOnlyThePool) {
  AllocatorHarness h;
  h.allocator->begin_allocate_to_pool(kPool, 7);
  std::uint64_t a = h.alloc(1000, 7);
  h.free(a);
  EXPECT_EQ(h.alloc(1000, 7), a);  // the pool reuses its own block
  std::uint64_t b = h.alloc(5000, 7);
  h.free(b);
  h.allocator->end_allocate_to_pool(kPool);
  std::uint64_t eager = h.alloc(5000, 7);  // same stream, eager: never the pool's block
  EXPECT_NE(eager, b);
  EXPECT_EQ(h.stat("segment.all.current"), 2);
  EXPECT_EQ(h.violations(), "");
}

TEST(PrivatePools, NothingGoesBackToTheDriverDuringCapture) {
  AllocatorHarness h({.capacity_bytes = 4 * kMiB});
  std::uint64_t cached = h.alloc(512, 0);
  h.free(cached);
  h.allocator->begin_allocate_to_pool(kPool, 7);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("segment.all.current"), 1);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 0);
  h.alloc(512, 7);  // 2 MiB more: fits exactly
  EXPECT_THROW(h.alloc(512, 8), OutOfMemoryError);  // only the stream 0 cache could make room
  EXPECT_EQ(h.stat("num_alloc_retries"), 0);
  EXPECT_EQ(h.stat("segment.all.current"), 2);
  EXPECT_EQ(h.violations(), "");
}

TEST(PrivatePools, ASharedPoolIsReleasedAfterBothUsersReleaseIt) {
  AllocatorHarness h;
  h.allocator->begin_allocate_to_pool(kPool, 7);
  std::uint64_t a = h.alloc(1000, 7);
  h.allocator->end_allocate_to_pool(kPool);
  h.allocator->begin_allocate_to_pool(kPool, 8);  // a second graph shares the pool
  h.allocator->end_allocate_to_pool(kPool);
  h.free(a);
  h.allocator->release_pool(kPool);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("segment.all.current"), 1);  // one user left
  h.allocator->release_pool(kPool);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  try {
    h.allocator->release_pool(kPool);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(), "release_pool: pool (1, 0) is not in use on device 0");
  }
  EXPECT_EQ(h.violations(), "");
}

TEST(PrivatePools, EndWithoutBeginIsAValueError) {
  AllocatorHarness h;
  try {
    h.allocator->end_allocate_to_pool({0, 3});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(),
                 "end_allocate_to_pool: pool (0, 3) has no allocation to it underway on device 0");
  }
}

TEST(PrivatePools, OomMessageCountsCachedPrivatePoolMemory) {
  AllocatorHarness h({.capacity_bytes = 24 * kMiB});
  h.allocator->begin_allocate_to_pool(kPool, 7);
  std::uint64_t a = h.alloc(1000, 7);
  h.free(a);
  h.allocator->end_allocate_to_pool(kPool);
  try {
    h.alloc(2 * kMiB, 0);  // a 20 MiB segment; the pool (in use) keeps its 2 MiB
    SUCCEED();
  } catch (...) {
    FAIL() << "should fit";
  }
  try {
    h.alloc(2 * kMiB, 1);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("Of the allocated memory 4.00 MiB is allocated by PyTorch, with 2.00 "
                        "MiB allocated in private pools (e.g., CUDA Graphs), and 18.00 MiB is "
                        "reserved by PyTorch but unallocated."),
              std::string::npos)
        << text;
  }
}

}  // namespace
}  // namespace accel::detail::alloc::testing
