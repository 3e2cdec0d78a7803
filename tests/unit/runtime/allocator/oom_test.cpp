// The allocation path's retry chain and OutOfMemoryError (PyTorch's malloc path): the order of the
// provider calls, the counters, PyTorch's message, the report, and that an OOM loses
// nothing; the per-process fraction, max_split_size and the garbage collector.
#include <gtest/gtest.h>

#include "allocator/oom_message.h"
#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

const std::string kTail =
    " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
    "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
    "documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";

// The retry chain waits for the events of blocks freed with record_stream; a block that
// the wait frees and that fits is used, not a new segment and not an OOM (PyTorch's
// spurious OOM, pytorch#189504: it asked the driver without looking in the pool again).
TEST(OutOfMemory, ABlockFreedByTheEventWaitIsUsedInsteadOfRaising) {
  AllocatorHarness h({.capacity_bytes = 40 * kMiB});
  std::uint64_t x = h.alloc(6 * kMiB, 0);   // a 20 MiB segment: x + 14 MiB free
  std::uint64_t y = h.alloc(14 * kMiB, 0);  // the rest of that segment
  std::uint64_t z = h.alloc(20 * kMiB, 0);  // its own segment: the device is full
  h.allocator->record_stream(x, 5);
  h.fake->enqueue_work(5);
  h.free(x);  // pending until stream 5's work is done
  EXPECT_EQ(h.alloc(6 * kMiB, 0), x);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 1);
  EXPECT_EQ(h.stat("num_alloc_retries"), 0);
  EXPECT_EQ(h.stat("num_ooms"), 0);
  EXPECT_EQ(h.stat("segment.all.current"), 2);
  EXPECT_EQ(h.violations(), "");
  h.free(y);
  h.free(z);
}

TEST(OutOfMemory, RetryReleasesTheCacheThenSucceeds) {
  AllocatorHarness h({.capacity_bytes = 21 * kMiB, .log_calls = true});
  std::uint64_t small = h.alloc(512);
  h.free(small);
  h.fake->clear_calls();
  std::uint64_t big = h.alloc(2 * kMiB);  // 20 MiB segment: only after the 2 MiB one goes
  EXPECT_NE(big, 0u);
  EXPECT_EQ(h.fake->calls(),
            (std::vector<std::string>{"allocate", "deallocate", "allocate"}));
  EXPECT_EQ(h.stat("num_alloc_retries"), 1);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 1);
  EXPECT_EQ(h.stat("num_ooms"), 0);
  EXPECT_EQ(h.violations(), "");
}

TEST(OutOfMemory, ThrowsPyTorchsMessageAndAReportAndLosesNothing) {
  AllocatorHarness h({.device = 2, .capacity_bytes = 64 * kMiB});
  h.allocator->record_history(true, 100);
  std::uint64_t live = h.alloc(30 * kMiB);
  std::uint64_t cached = h.alloc(4 * kMiB, 3);  // 20 MiB segment on stream 3
  h.free(cached);
  auto before = flatten(h.allocator->stats());
  try {
    h.alloc(40 * kMiB);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    // The retry released stream 3's cached 20 MiB segment (free 34 MiB), still short.
    EXPECT_EQ(std::string(e.what()),
              "CUDA out of memory. Tried to allocate 40.00 MiB. GPU 2 has a total capacity of "
              "64.00 MiB of which 34.00 MiB is free. Of the allocated memory 30.00 MiB is "
              "allocated by PyTorch, and 0 bytes" + kTail);
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
    EXPECT_EQ(e.device(), 2);
    const OutOfMemoryReport& r = e.report();
    EXPECT_EQ(r.device, 2);
    EXPECT_EQ(r.requested_bytes, 40 * kMiB);
    EXPECT_EQ(r.allocation_bytes, 40 * kMiB);
    EXPECT_EQ(r.total_bytes, 64 * kMiB);
    EXPECT_EQ(r.free_bytes, 34 * kMiB);
    EXPECT_EQ(r.allocated_bytes, 30 * kMiB);
    EXPECT_EQ(r.reserved_bytes, 30 * kMiB);
    EXPECT_EQ(r.largest_free_block, 0u);
    EXPECT_TRUE(r.streams.empty());
  }
  EXPECT_EQ(h.stat("num_ooms"), 1);
  EXPECT_EQ(h.stat("num_alloc_retries"), 1);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), before.at("allocated_bytes.all.current"));
  EXPECT_TRUE(h.allocator->owns(live));
  auto trace = h.allocator->trace();
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.back().action, "oom");
  EXPECT_EQ(trace.back().addr, 34 * kMiB);
  EXPECT_EQ(h.violations(), "");
  h.free(live);
  EXPECT_NE(h.alloc(40 * kMiB), 0u);  // usable after the OOM
}

// The same OOM on an xpu device: XPUCachingAllocator's wording, private pools not told
// apart (Note [Out-of-memory wording per device type]).
TEST(OutOfMemory, AnXpuDeviceUsesPyTorchsXpuWording) {
  AllocatorHarness h({.device = 1, .capacity_bytes = 64 * kMiB}, {}, "xpu");
  std::uint64_t live = h.alloc(30 * kMiB);
  try {
    h.alloc(40 * kMiB);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "XPU out of memory. Tried to allocate 40.00 MiB. GPU 1 has a total capacity of "
              "64.00 MiB of which 34.00 MiB is free. Of the allocated memory 30.00 MiB is "
              "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. Please "
              "use `empty_cache` to release all unoccupied cached memory.");
    EXPECT_EQ(e.device(), 1);
  }
  h.free(live);
}

// A device type PyTorch has no allocator for: CUDA's wording under its own name, naming the
// device-agnostic settings variable.
TEST(OutOfMemory, AnotherDeviceTypeNamesItselfAndTheDeviceAgnosticVariable) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB}, {}, "npu");
  std::uint64_t live = h.alloc(30 * kMiB);
  try {
    h.alloc(40 * kMiB);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "NPU out of memory. Tried to allocate 40.00 MiB. GPU 0 has a total capacity of "
              "64.00 MiB of which 34.00 MiB is free. Of the allocated memory 30.00 MiB is "
              "allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If "
              "reserved but unallocated memory is large try setting "
              "PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
              "documentation for Memory Management  "
              "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
  }
  h.free(live);
}

// 1 EiB or more is refused before any pool is looked at, in the device type's words.
TEST(OutOfMemory, OneExbibyteIsRefusedInTheDeviceTypesWords) {
  for (const char* type : {"cuda", "xpu"}) {
    AllocatorHarness h({.capacity_bytes = 64 * kMiB, .log_calls = true}, {}, type);
    try {
      h.alloc(std::size_t{1} << 60);
      FAIL() << "no error for " << type;
    } catch (const OutOfMemoryError& e) {
      EXPECT_EQ(std::string(e.what()), upper_device_type(type) +
                                           " out of memory. Tried to allocate more than 1EB "
                                           "memory.");
    }
    EXPECT_EQ(h.stat("num_ooms"), 0) << type;
    EXPECT_EQ(h.fake->calls(), std::vector<std::string>{}) << type;
  }
}

TEST(OutOfMemory, ReportNamesTheLargestFreeBlockPerStream) {
  AllocatorHarness h({.capacity_bytes = 40 * kMiB});
  std::uint64_t a = h.alloc(2 * kMiB, 0);   // 20 MiB segment on stream 0
  std::uint64_t b = h.alloc(6 * kMiB, 0);   // same segment
  std::uint64_t c = h.alloc(9 * kMiB, 0);   // same segment; 3 MiB tail
  std::uint64_t d = h.alloc(14 * kMiB, 1);  // own 14 MiB segment on stream 1
  h.free(b);
  try {
    h.alloc(12 * kMiB, 0);
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    const OutOfMemoryReport& r = e.report();
    EXPECT_EQ(r.largest_free_block, 6 * kMiB);
    ASSERT_EQ(r.streams.size(), 1u);
    EXPECT_EQ(r.streams[0].stream, 0);
    EXPECT_EQ(r.streams[0].largest_free_block, 6 * kMiB);
    EXPECT_EQ(r.streams[0].reserved_unallocated, 9 * kMiB);
    EXPECT_NE(std::string(e.what()).find("and 9.00 MiB is reserved by PyTorch but unallocated"),
              std::string::npos);
  }
  (void)a;
  (void)c;
  (void)d;
  EXPECT_EQ(h.violations(), "");
}

TEST(OutOfMemory, OtherDriverErrorsAreRaisedAtOnceWithoutRetry) {
  AllocatorHarness h({.log_calls = true});
  h.fake->fail_call("allocate", ErrorKind::kDriver);
  try {
    h.alloc(512);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDriver);
    EXPECT_STREQ(e.what(), "fake allocate: injected failure");
  }
  EXPECT_EQ(h.fake->calls(), (std::vector<std::string>{"allocate"}));
  EXPECT_EQ(h.stat("num_alloc_retries"), 0);
  EXPECT_EQ(h.stat("num_ooms"), 0);
  EXPECT_EQ(h.violations(), "");
}

TEST(MemoryFraction, CapsReservedBytesWithoutAskingTheDriver) {
  AllocatorHarness h({.capacity_bytes = 64 * kMiB});
  h.allocator->set_memory_fraction(0.5);
  EXPECT_EQ(h.allocator->memory_fraction(), 0.5);
  h.alloc(30 * kMiB);
  std::size_t driver_calls = h.fake->count("allocate");
  try {
    h.alloc(2 * kMiB);  // a 20 MiB segment: 50 MiB > 32 MiB allowed
    FAIL() << "no error";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
              "64.00 MiB of which 34.00 MiB is free. 32.00 MiB allowed; Of the allocated memory "
              "30.00 MiB is allocated by PyTorch, and 0 bytes" + kTail);
  }
  EXPECT_EQ(h.fake->count("allocate"), driver_calls);
  h.alloc(512);  // a 2 MiB small segment still fits under 32 MiB
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(32 * kMiB));
  EXPECT_EQ(h.violations(), "");
}

TEST(MaxSplitSize, OversizeBlocksServeOnlyRequestsTheyFit) {
  AllocatorConfig config;
  config.max_split_size = 40 * kMiB;
  AllocatorHarness h({}, config);
  std::uint64_t big = h.alloc(80 * kMiB);
  EXPECT_EQ(h.stat("oversize_allocations.current"), 1);
  EXPECT_EQ(h.stat("oversize_segments.current"), 1);
  EXPECT_EQ(h.stat("max_split_size"), static_cast<std::int64_t>(40 * kMiB));
  h.free(big);
  EXPECT_EQ(h.stat("oversize_allocations.current"), 0);
  std::uint64_t normal = h.alloc(12 * kMiB);  // < max_split: the 80 MiB block is refused
  EXPECT_NE(normal, big);
  std::uint64_t far = h.alloc(45 * kMiB);  // 80 >= 45 + 20: refused too
  EXPECT_NE(far, big);
  std::uint64_t close = h.alloc(62 * kMiB);  // 80 < 62 + 20: taken whole, never split
  EXPECT_EQ(close, big);
  EXPECT_EQ(h.stat("allocated_bytes.all.current"), static_cast<std::int64_t>((12 + 46 + 80) * kMiB));  // 45 MiB: an unsplit 46 MiB block
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);
  EXPECT_EQ(h.violations(), "");
}

TEST(MaxSplitSize, ChangingTheLimitKeepsOversizeCountsConsistent) {
  AllocatorHarness h;
  std::uint64_t before = h.alloc(80 * kMiB);  // not oversize under the unlimited default
  AllocatorConfig limited;
  limited.max_split_size = 40 * kMiB;
  h.allocator->set_config(limited);
  std::uint64_t after = h.alloc(60 * kMiB);
  EXPECT_EQ(h.stat("oversize_allocations.current"), 1);
  EXPECT_EQ(h.stat("oversize_segments.current"), 1);
  h.free(before);
  h.free(after);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("oversize_allocations.current"), 0);
  EXPECT_EQ(h.stat("oversize_segments.current"), 0);
  EXPECT_EQ(h.violations(), "");
}

TEST(MaxSplitSize, ReleasesOneOversizeBlockOfTheStreamAndRetries) {
  AllocatorConfig config;
  config.max_split_size = 30 * kMiB;
  AllocatorHarness h({.capacity_bytes = 100 * kMiB, .log_calls = true}, config);
  std::uint64_t keep = h.alloc(512);  // a small cached segment the full flush would free
  h.free(keep);
  std::uint64_t big = h.alloc(70 * kMiB);
  h.free(big);
  h.fake->clear_calls();
  h.alloc(32 * kMiB);  // 70 >= 32 + 20: not reused; no room; frees the 70 MiB block only
  EXPECT_EQ(h.fake->calls(),
            (std::vector<std::string>{"allocate", "deallocate", "allocate"}));
  EXPECT_EQ(h.stat("num_alloc_retries"), 0);
  EXPECT_EQ(h.stat("num_sync_all_streams"), 0);
  EXPECT_EQ(h.stat("segment.small_pool.current"), 1);
  EXPECT_EQ(h.violations(), "");
}

TEST(GarbageCollection, FreesOldCachedSegmentsAboveTheThreshold) {
  AllocatorConfig config;
  config.garbage_collection_threshold = 0.5;
  AllocatorHarness h({.capacity_bytes = 100 * kMiB}, config);
  h.allocator->set_memory_fraction(0.5);  // 50 MiB allowed, GC above 25 MiB
  std::uint64_t a = h.alloc(26 * kMiB, 0);
  h.free(a);
  h.alloc(12 * kMiB, 1);  // miss: reserved 26 > 25 -> the cached 26 MiB segment goes
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(12 * kMiB));
  EXPECT_EQ(h.stat("num_device_free"), 1);
  EXPECT_EQ(h.stat("num_alloc_retries"), 0);
  EXPECT_EQ(h.violations(), "");
}

TEST(GarbageCollection, OffWithoutAFraction) {
  AllocatorConfig config;
  config.garbage_collection_threshold = 0.5;
  AllocatorHarness h({.capacity_bytes = 100 * kMiB}, config);
  std::uint64_t a = h.alloc(26 * kMiB, 0);
  h.free(a);
  h.alloc(12 * kMiB, 1);
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), static_cast<std::int64_t>(38 * kMiB));
  EXPECT_EQ(h.stat("num_device_free"), 0);
}

}  // namespace
}  // namespace accel::detail::alloc::testing
