// The pinned host caching allocator over a fake provider: rounding, buckets, reuse only
// after the events of every recorded stream complete, capture, empty_cache, statistics
// (torch.cuda.host_memory_stats's keys and rules) and errors, all with exact values.

#include "allocator/host_caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "error_check.h"
#include "fake_host_provider.h"

namespace accel::detail::alloc {
namespace {

using accel::test::catch_error;
using accel::test::FakeHostProvider;
using accel::test::hex_address;
using accel::test::is_error;
using Stats = std::map<std::string, std::int64_t>;

std::uintptr_t addr(void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// Every key of host_memory_stats at 0.
Stats zero_stats() {
  Stats stats;
  for (const char* name : {"allocations", "allocated_bytes", "active_requests", "active_bytes"}) {
    for (const char* part : {"current", "peak", "allocated", "freed"}) {
      stats[std::string(name) + "." + part] = 0;
    }
  }
  stats["num_host_alloc"] = 0;
  stats["num_host_free"] = 0;
  for (const char* name : {"host_alloc_time", "host_free_time"}) {
    for (const char* part : {"total", "max", "min", "count", "avg"}) {
      stats[std::string(name) + "." + part] = 0;
    }
  }
  return stats;
}

// Sets current/peak/allocated/freed of `name`.
void set4(Stats& stats, const std::string& name, std::int64_t current, std::int64_t peak,
          std::int64_t allocated, std::int64_t freed) {
  stats[name + ".current"] = current;
  stats[name + ".peak"] = peak;
  stats[name + ".allocated"] = allocated;
  stats[name + ".freed"] = freed;
}

class HostAllocatorTest : public ::testing::Test {
 protected:
  HostAllocatorTest() {
    auto provider = std::make_unique<FakeHostProvider>();
    fake_ = provider.get();
    allocator_ = std::make_unique<HostCachingAllocator>(std::move(provider), AllocatorConfig{},
                                                        [this] { return fake_->now_us(); });
  }
  std::int64_t stat(const std::string& key) const { return allocator_->stats().at(key); }

  FakeHostProvider* fake_ = nullptr;
  std::unique_ptr<HostCachingAllocator> allocator_;
};

TEST(HostBlockSize, RoundsUpToThePowerOfTwo) {
  EXPECT_EQ(host_block_size(1), 1u);
  EXPECT_EQ(host_block_size(3), 4u);
  EXPECT_EQ(host_block_size(4096), 4096u);
  EXPECT_EQ(host_block_size(4097), 8192u);
  EXPECT_EQ(host_block_size(40 * 1024), 65536u);
  EXPECT_EQ(host_block_size(std::size_t{1} << 63), std::size_t{1} << 63);
  EXPECT_EQ(host_block_size((std::size_t{1} << 63) + 1), 0u);
  EXPECT_EQ(host_block_size(std::numeric_limits<std::size_t>::max()), 0u);
}

TEST_F(HostAllocatorTest, StatsStartAtZeroWithEveryKey) {
  const Stats stats = allocator_->stats();
  EXPECT_EQ(stats, zero_stats());
  EXPECT_EQ(stats.size(), 28u);
}

TEST_F(HostAllocatorTest, ZeroBytesIsNullAndChangesNothing) {
  EXPECT_EQ(allocator_->allocate(0), nullptr);
  EXPECT_EQ(allocator_->stats(), zero_stats());
  EXPECT_TRUE(fake_->calls().empty());
}

// PyTorch's test_host_memory_stats (test/test_cuda.py): 40 KiB -> 64 KiB bucket, 80 KiB -> 128 KiB,
// and empty_cache with both alive changes nothing.
TEST_F(HostAllocatorTest, HostMemoryStatsArithmetic) {
  fake_->set_costs_us(7, 3);
  allocator_->empty_cache();
  EXPECT_EQ(allocator_->stats(), zero_stats());

  void* a = allocator_->allocate(10 * 1024 * 4);
  Stats expected = zero_stats();
  set4(expected, "allocations", 1, 1, 1, 0);
  set4(expected, "active_requests", 1, 1, 1, 0);
  set4(expected, "allocated_bytes", 65536, 65536, 65536, 0);
  set4(expected, "active_bytes", 65536, 65536, 65536, 0);
  expected["num_host_alloc"] = 1;
  expected["host_alloc_time.count"] = 1;
  expected["host_alloc_time.total"] = 7;
  expected["host_alloc_time.max"] = 7;
  expected["host_alloc_time.min"] = 7;
  expected["host_alloc_time.avg"] = 7;
  EXPECT_EQ(allocator_->stats(), expected);

  fake_->set_costs_us(4, 3);
  void* b = allocator_->allocate(20 * 1024 * 4);
  set4(expected, "allocations", 2, 2, 2, 0);
  set4(expected, "active_requests", 2, 2, 2, 0);
  set4(expected, "allocated_bytes", 196608, 196608, 196608, 0);
  set4(expected, "active_bytes", 196608, 196608, 196608, 0);
  expected["num_host_alloc"] = 2;
  expected["host_alloc_time.count"] = 2;
  expected["host_alloc_time.total"] = 11;
  expected["host_alloc_time.max"] = 7;
  expected["host_alloc_time.min"] = 4;
  expected["host_alloc_time.avg"] = 5;  // 11 / 2, integer division
  EXPECT_EQ(allocator_->stats(), expected);

  allocator_->empty_cache();
  EXPECT_EQ(allocator_->stats(), expected);
  EXPECT_EQ(fake_->live().size(), 2u);

  allocator_->free(a);
  allocator_->free(b);
  set4(expected, "active_requests", 0, 2, 2, 2);
  set4(expected, "active_bytes", 0, 196608, 196608, 196608);
  EXPECT_EQ(allocator_->stats(), expected);

  allocator_->empty_cache();
  set4(expected, "allocations", 0, 2, 2, 2);
  set4(expected, "allocated_bytes", 0, 196608, 196608, 196608);
  expected["num_host_free"] = 2;
  expected["host_free_time.count"] = 2;
  expected["host_free_time.total"] = 6;
  expected["host_free_time.max"] = 3;
  expected["host_free_time.min"] = 3;
  expected["host_free_time.avg"] = 3;
  EXPECT_EQ(allocator_->stats(), expected);
  EXPECT_TRUE(fake_->live().empty());
}

TEST_F(HostAllocatorTest, EachRequestTakesItsPowerOfTwoBucket) {
  void* one = allocator_->allocate(1);
  void* three = allocator_->allocate(3);
  void* page = allocator_->allocate(4097);
  EXPECT_EQ(fake_->live().at(addr(one)), 1u);
  EXPECT_EQ(fake_->live().at(addr(three)), 4u);
  EXPECT_EQ(fake_->live().at(addr(page)), 8192u);
  EXPECT_EQ(stat("allocated_bytes.current"), 1 + 4 + 8192);
}

TEST_F(HostAllocatorTest, AFreedBlockIsReusedBySameBucketOnly) {
  void* a = allocator_->allocate(5000);  // 8 KiB
  allocator_->free(a);
  fake_->clear_calls();
  void* b = allocator_->allocate(8192);  // same bucket: the cached block, no provider call
  EXPECT_EQ(b, a);
  EXPECT_TRUE(fake_->calls().empty());
  allocator_->free(b);
  void* c = allocator_->allocate(16384);  // another bucket: new memory
  EXPECT_NE(c, a);
  EXPECT_EQ(fake_->calls(), std::vector<std::string>{"allocate(16384)=" + hex_address(addr(c))});
  EXPECT_EQ(stat("allocations.current"), 2);
  EXPECT_EQ(stat("active_requests.current"), 1);
  EXPECT_EQ(stat("num_host_alloc"), 2);
}

TEST_F(HostAllocatorTest, TheMostRecentlyFreedBlockIsReusedFirst) {
  void* a = allocator_->allocate(64);
  void* b = allocator_->allocate(64);
  allocator_->free(a);
  allocator_->free(b);
  EXPECT_EQ(allocator_->allocate(64), b);
  EXPECT_EQ(allocator_->allocate(64), a);
}

// test_caching_pinned_memory: a block used by pending work is not handed out again; once
// that work completes, the same address is.
TEST_F(HostAllocatorTest, ABlockIsNotReusedBeforeEveryRecordedStreamCompletes) {
  void* a = allocator_->allocate(1000);
  allocator_->record_use(a, 0, 5);
  allocator_->record_use(a, 1, 2);
  allocator_->record_use(a, 0, 5);  // once per stream
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_EQ(fake_->calls(),
            (std::vector<std::string>{"record_event(0,5)=1", "record_event(1,2)=2"}));
  EXPECT_EQ(stat("active_requests.current"), 0);
  EXPECT_EQ(stat("allocations.current"), 1);

  void* b = allocator_->allocate(1000);  // pending: new memory
  EXPECT_NE(b, a);
  EXPECT_EQ(fake_->complete_stream(0, 5), 1);
  void* c = allocator_->allocate(1000);  // one event still pending
  EXPECT_NE(c, a);
  EXPECT_EQ(fake_->events().at(1).destroyed, true);  // completed events are destroyed
  EXPECT_EQ(fake_->events().at(2).destroyed, false);
  EXPECT_EQ(fake_->complete_stream(1, 2), 1);
  EXPECT_EQ(allocator_->allocate(1000), a);
  EXPECT_EQ(fake_->undestroyed_events(), 0u);
  EXPECT_EQ(stat("allocations.current"), 3);
  EXPECT_EQ(stat("num_host_alloc"), 3);
}

TEST_F(HostAllocatorTest, StreamsRecordedBeforeAReuseDoNotCarryOver) {
  void* a = allocator_->allocate(64);
  allocator_->record_use(a, 0, 1);
  allocator_->free(a);
  fake_->complete_all();
  void* b = allocator_->allocate(64);
  ASSERT_EQ(b, a);
  fake_->clear_calls();
  allocator_->free(b);  // no use recorded since the reuse: no event
  EXPECT_TRUE(fake_->calls().empty());
  EXPECT_EQ(allocator_->allocate(64), a);
}

TEST_F(HostAllocatorTest, RecordUseAcceptsAnAddressInsideTheBlock) {
  auto* a = static_cast<char*>(allocator_->allocate(4096));
  allocator_->record_use(a + 4095, 2, 9);
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_EQ(fake_->calls(), std::vector<std::string>{"record_event(2,9)=1"});
}

TEST_F(HostAllocatorTest, RecordUseErrorsNameThePointer) {
  auto* a = static_cast<char*>(allocator_->allocate(4096));
  const std::string past_end = hex_address(addr(a + 4096));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->record_use(a + 4096, 0, 1); }),
                       ErrorKind::kValue,
                       "record_use: pointer " + past_end + " is not in a live pinned block"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->record_use(a, -1, 1); }), ErrorKind::kValue,
                       "record_use: invalid device -1 for pointer " + hex_address(addr(a))));
  allocator_->free(a);
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->record_use(a, 0, 1); }), ErrorKind::kValue,
                       "record_use: pointer " + hex_address(addr(a)) +
                           " is not in a live pinned block"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->record_use(nullptr, 0, 1); }),
                       ErrorKind::kValue, "record_use: pointer 0x0 is not in a live pinned block"));
}

TEST_F(HostAllocatorTest, FreeErrorsNameThePointerAndChangeNothing) {
  auto* a = static_cast<char*>(allocator_->allocate(4096));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->free(a + 8); }), ErrorKind::kValue,
                       "free: pointer " + hex_address(addr(a + 8)) + " is not a pinned block"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->free(reinterpret_cast<void*>(0x1234)); }),
                       ErrorKind::kValue, "free: pointer 0x1234 is not a pinned block"));
  EXPECT_EQ(stat("active_requests.current"), 1);
  allocator_->free(a);
  const Stats after_free = allocator_->stats();
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->free(a); }), ErrorKind::kValue,
                       "free: pointer " + hex_address(addr(a)) + " was already freed"));
  EXPECT_EQ(allocator_->stats(), after_free);
  allocator_->free(nullptr);  // a no-op, as PyTorch's
  EXPECT_EQ(allocator_->stats(), after_free);
}

TEST_F(HostAllocatorTest, EmptyCacheReleasesOnlyCachedBlocksWithCompletedEvents) {
  void* live = allocator_->allocate(100);
  void* cached = allocator_->allocate(200);
  void* pending = allocator_->allocate(300);
  allocator_->record_use(pending, 0, 7);
  allocator_->free(cached);
  allocator_->free(pending);
  fake_->clear_calls();
  allocator_->empty_cache();
  EXPECT_EQ(fake_->calls(), (std::vector<std::string>{
                                "query_event(1)", "deallocate(" + hex_address(addr(cached)) + ")"}));
  EXPECT_EQ(fake_->live().size(), 2u);
  EXPECT_EQ(stat("allocations.current"), 2);
  EXPECT_EQ(stat("allocated_bytes.current"), 128 + 512);

  fake_->complete_stream(0, 7);
  allocator_->empty_cache();
  EXPECT_EQ(fake_->live().size(), 1u);
  EXPECT_TRUE(fake_->live().contains(addr(live)));
  EXPECT_EQ(stat("allocations.current"), 1);
  EXPECT_EQ(stat("allocated_bytes.current"), 128);
  EXPECT_EQ(stat("num_host_free"), 2);
  EXPECT_EQ(stat("allocations.freed"), 2);
  EXPECT_EQ(fake_->undestroyed_events(), 0u);
}

TEST_F(HostAllocatorTest, OutOfMemoryIsAnOutOfMemoryErrorAndChangesNothing) {
  fake_->set_capacity(100000);
  void* a = allocator_->allocate(65536);
  const Stats before = allocator_->stats();
  const auto caught = catch_error([&] { allocator_->allocate(40000); });
  EXPECT_EQ(caught.type, "OutOfMemoryError");
  EXPECT_TRUE(is_error(caught, ErrorKind::kOutOfMemory,
                       "allocate_host: out of pinned host memory: tried to allocate 65536 bytes "
                       "(requested 40000): fake pinned memory exhausted (capacity=100000)"));
  EXPECT_EQ(allocator_->stats(), before);
  allocator_->free(a);
  EXPECT_EQ(allocator_->allocate(40000), a);  // the cached block still serves
}

TEST_F(HostAllocatorTest, ARequestNoPowerOfTwoHoldsIsAnOutOfMemoryError) {
  const std::size_t huge = (std::size_t{1} << 63) + 1;
  const auto caught = catch_error([&] { allocator_->allocate(huge); });
  EXPECT_EQ(caught.type, "OutOfMemoryError");
  EXPECT_TRUE(is_error(caught, ErrorKind::kOutOfMemory,
                       "allocate_host: cannot allocate 9223372036854775809 bytes of pinned "
                       "memory: no power of two of at most 2^63 holds it"));
  EXPECT_TRUE(fake_->calls().empty());
}

TEST_F(HostAllocatorTest, OtherProviderFailuresAreRaisedAsTheyAre) {
  fake_->fail_next_allocate(Status(ErrorKind::kDriver, "CUDA error: invalid value"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->allocate(10); }), ErrorKind::kDriver,
                       "CUDA error: invalid value"));
  EXPECT_EQ(allocator_->stats(), zero_stats());
}

TEST_F(HostAllocatorTest, ARecordFailureAtFreeLeavesTheBlockCheckedOut) {
  void* a = allocator_->allocate(64);
  allocator_->record_use(a, 0, 1);
  allocator_->record_use(a, 0, 2);
  const Stats before = allocator_->stats();
  fake_->clear_calls();
  fake_->fail_next_record(Status(ErrorKind::kDriver, "record failed"), 1);
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->free(a); }), ErrorKind::kDriver,
                       "record failed"));
  // All or nothing: the event recorded before the failure is destroyed again.
  EXPECT_EQ(fake_->calls(), (std::vector<std::string>{"record_event(0,1)=1",
                                                      "record_event(0,2)=failed",
                                                      "destroy_event(1)"}));
  EXPECT_EQ(allocator_->stats(), before);
  // Still checked out with its streams: a second free records both.
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_EQ(fake_->calls(),
            (std::vector<std::string>{"record_event(0,1)=2", "record_event(0,2)=3"}));
  EXPECT_EQ(stat("active_requests.current"), 0);
}

TEST_F(HostAllocatorTest, AQueryFailureKeepsTheEventPending) {
  void* a = allocator_->allocate(64);
  allocator_->record_use(a, 0, 1);
  allocator_->free(a);
  fake_->complete_all();
  fake_->fail_next_query(Status(ErrorKind::kDriver, "query failed"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->allocate(64); }), ErrorKind::kDriver,
                       "query failed"));
  EXPECT_EQ(allocator_->allocate(64), a);  // queried again, now completed
}

TEST_F(HostAllocatorTest, ADeallocateFailureKeepsTheBlockCached) {
  void* a = allocator_->allocate(64);
  allocator_->free(a);
  fake_->fail_next_deallocate(Status(ErrorKind::kDriver, "free failed"));
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->empty_cache(); }), ErrorKind::kDriver,
                       "free failed"));
  EXPECT_EQ(stat("allocations.current"), 1);
  EXPECT_EQ(stat("num_host_free"), 0);
  EXPECT_EQ(allocator_->allocate(64), a);
}

TEST_F(HostAllocatorTest, ResetsFollowThePeakAndAccumulatedRules) {
  fake_->set_costs_us(5, 2);
  void* a = allocator_->allocate(64);
  void* b = allocator_->allocate(128);
  allocator_->free(a);
  allocator_->free(b);
  allocator_->empty_cache();
  allocator_->reset_peak_stats();
  Stats expected = zero_stats();
  set4(expected, "allocations", 0, 0, 2, 2);
  set4(expected, "allocated_bytes", 0, 0, 192, 192);
  set4(expected, "active_requests", 0, 0, 2, 2);
  set4(expected, "active_bytes", 0, 0, 192, 192);
  expected["num_host_alloc"] = 2;
  expected["num_host_free"] = 2;
  expected["host_alloc_time.total"] = 10;
  expected["host_alloc_time.count"] = 2;
  expected["host_alloc_time.avg"] = 5;
  expected["host_free_time.total"] = 4;
  expected["host_free_time.count"] = 2;
  expected["host_free_time.avg"] = 2;
  EXPECT_EQ(allocator_->stats(), expected);  // min/max are peaks: cleared

  void* c = allocator_->allocate(256);
  allocator_->reset_accumulated_stats();
  expected = zero_stats();
  set4(expected, "allocations", 1, 1, 0, 0);
  set4(expected, "allocated_bytes", 256, 256, 0, 0);
  set4(expected, "active_requests", 1, 1, 0, 0);
  set4(expected, "active_bytes", 256, 256, 0, 0);
  expected["host_alloc_time.max"] = 5;  // peaks survive an accumulated reset
  expected["host_alloc_time.min"] = 5;
  EXPECT_EQ(allocator_->stats(), expected);
  allocator_->free(c);
}

TEST_F(HostAllocatorTest, ABlockAllocatedDuringCaptureGetsNoEvents) {
  allocator_->begin_capture();
  void* a = allocator_->allocate(64);
  allocator_->record_use(a, 0, 4);
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_TRUE(fake_->calls().empty());
  EXPECT_EQ(allocator_->allocate(64), a);  // straight back to its bucket
  allocator_->end_capture();
}

TEST_F(HostAllocatorTest, ACachedBlockReusedDuringCaptureGetsNoEventsEither) {
  void* a = allocator_->allocate(64);
  allocator_->free(a);
  allocator_->begin_capture();
  ASSERT_EQ(allocator_->allocate(64), a);  // taken from its bucket during the capture
  allocator_->end_capture();
  allocator_->record_use(a, 1, 1);
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_TRUE(fake_->calls().empty());
  EXPECT_EQ(allocator_->allocate(64), a);
}

TEST_F(HostAllocatorTest, ABlockFreedDuringCaptureWaitsForItsEagerUses) {
  void* a = allocator_->allocate(64);
  allocator_->record_use(a, 0, 4);
  allocator_->begin_capture();
  allocator_->begin_capture();  // nested
  fake_->clear_calls();
  allocator_->free(a);
  EXPECT_TRUE(fake_->calls().empty());  // nothing recorded on a capturing stream
  EXPECT_EQ(stat("active_requests.current"), 0);
  void* b = allocator_->allocate(64);  // deferred: not reused during the capture
  EXPECT_NE(b, a);
  allocator_->empty_cache();  // releases nothing during capture
  EXPECT_EQ(fake_->live().size(), 2u);
  allocator_->end_capture();
  EXPECT_EQ(fake_->calls().size(), 1u);  // the inner end records nothing
  allocator_->end_capture();
  EXPECT_EQ(fake_->calls().back(), "record_event(0,4)=1");
  void* c = allocator_->allocate(64);
  EXPECT_NE(c, a);  // its event has not completed
  fake_->complete_all();
  EXPECT_EQ(allocator_->allocate(64), a);
  EXPECT_TRUE(is_error(catch_error([&] { allocator_->end_capture(); }), ErrorKind::kRuntime,
                       "end_capture: no capture is underway"));
}

TEST_F(HostAllocatorTest, ConcurrentUseKeepsTheStatisticsConsistent) {
  constexpr int kThreads = 2;
  constexpr int kRounds = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < kRounds; ++i) {
        void* p = allocator_->allocate(static_cast<std::size_t>(64 << (i % 4)));
        allocator_->record_use(p, t, i % 3);
        allocator_->free(p);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(stat("active_requests.current"), 0);
  EXPECT_EQ(stat("active_requests.allocated"), kThreads * kRounds);
  EXPECT_EQ(stat("active_requests.freed"), kThreads * kRounds);
  EXPECT_EQ(stat("num_host_alloc"), stat("allocations.allocated"));
  fake_->complete_all();
  allocator_->empty_cache();
  EXPECT_EQ(stat("allocations.current"), 0);
  EXPECT_TRUE(fake_->live().empty());
  EXPECT_EQ(fake_->undestroyed_events(), 0u);
}

}  // namespace
}  // namespace accel::detail::alloc
