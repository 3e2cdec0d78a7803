// The fake provider itself: capacity, events, virtual memory and faults behave as the
// allocator's tests assume.
#include "fake_device_provider.h"

#include <gtest/gtest.h>

namespace accel::detail::alloc::testing {
namespace {

TEST(FakeDeviceProvider, AllocatesUpToCapacityAndFreesExactly) {
  FakeDeviceProvider fake({.capacity_bytes = 4 * kMiB});
  auto a = fake.allocate(2 * kMiB);
  auto b = fake.allocate(2 * kMiB);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_NE(a->value, b->value);
  auto c = fake.allocate(512);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(fake.used_bytes(), 4 * kMiB);
  EXPECT_TRUE(fake.deallocate(*a).ok());
  EXPECT_EQ(fake.used_bytes(), 2 * kMiB);
  EXPECT_EQ(fake.deallocate(*a).kind(), ErrorKind::kValue);
  EXPECT_EQ(fake.memory_info()->free_bytes, 2 * kMiB);
  EXPECT_EQ(fake.count("allocate"), 3u);
}

TEST(FakeDeviceProvider, EventsCompleteWithTheWorkQueuedBeforeThem) {
  FakeDeviceProvider fake;
  fake.enqueue_work(7);
  auto e = fake.record_event(7);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(*fake.query_event(*e));
  fake.enqueue_work(7);
  auto later = fake.record_event(7);
  fake.complete_work(7);
  EXPECT_TRUE(*fake.query_event(*e));
  EXPECT_TRUE(*fake.query_event(*later));
  auto idle = fake.record_event(3);
  EXPECT_TRUE(*fake.query_event(*idle));
  fake.enqueue_work(3);
  auto busy = fake.record_event(3);
  EXPECT_TRUE(fake.synchronize_event(*busy).ok());
  EXPECT_TRUE(*fake.query_event(*busy));
  EXPECT_FALSE(fake.has_pending_work(3));
  EXPECT_EQ(fake.live_events(), 4u);
}

TEST(FakeDeviceProvider, VirtualMemoryMapsWholePagesOfReservedRanges) {
  FakeDeviceProvider fake({.capacity_bytes = 8 * kMiB});
  auto base = fake.reserve_address_range(64 * kMiB);
  ASSERT_TRUE(base.ok());
  auto page = fake.create_physical(2 * kMiB);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(fake.map(DevicePointer{base->value + 512}, 2 * kMiB, *page).kind(), ErrorKind::kValue);
  EXPECT_TRUE(fake.map(DevicePointer{base->value + 2 * kMiB}, 2 * kMiB, *page).ok());
  EXPECT_EQ(fake.mapped_bytes(), 2 * kMiB);
  EXPECT_EQ(fake.free_address_range(*base, 64 * kMiB).kind(), ErrorKind::kValue);
  EXPECT_TRUE(fake.unmap(DevicePointer{base->value + 2 * kMiB}, 2 * kMiB).ok());
  EXPECT_TRUE(fake.release_physical(*page).ok());
  EXPECT_TRUE(fake.free_address_range(*base, 64 * kMiB).ok());
  EXPECT_EQ(fake.used_bytes(), 0u);
}

TEST(FakeDeviceProvider, ScheduledFaultFiresOnTheNthCallOnly) {
  FakeDeviceProvider fake({.log_calls = true});
  fake.fail_call("allocate", ErrorKind::kDriver, 2);
  EXPECT_TRUE(fake.allocate(512).ok());
  EXPECT_EQ(fake.allocate(512).status().kind(), ErrorKind::kDriver);
  EXPECT_TRUE(fake.allocate(512).ok());
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"allocate", "allocate", "allocate"}));
}

TEST(FakeDeviceProvider, WithoutVirtualMemoryGranularityIsUnsupported) {
  FakeDeviceProvider fake({.virtual_memory = false});
  EXPECT_EQ(fake.granularity().status().kind(), ErrorKind::kUnsupported);
}

}  // namespace
}  // namespace accel::detail::alloc::testing
