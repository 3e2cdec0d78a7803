// Statistics arithmetic and names (torch.cuda.memory_stats's update rules and keys).
#include "allocator/device_stats.h"

#include <gtest/gtest.h>

namespace accel::detail::alloc {
namespace {

TEST(DeviceStats, IncreaseDecreaseTrackPeakAndTotals) {
  Stat s;
  s.increase(10);
  s.increase(5);
  s.decrease(12);
  EXPECT_EQ(s.current, 3);
  EXPECT_EQ(s.peak, 15);
  EXPECT_EQ(s.allocated, 15);
  EXPECT_EQ(s.freed, 12);
  s.reset_peak();
  EXPECT_EQ(s.peak, 3);
  s.reset_accumulated();
  EXPECT_EQ(s.allocated, 0);
  EXPECT_EQ(s.freed, 0);
  EXPECT_EQ(s.current, 3);
}

TEST(DeviceStats, ArrayUpdatesAllAndOnePool) {
  StatArray a;
  a.increase(true, 512);
  a.increase(false, 2048);
  a.decrease(true, 512);
  EXPECT_EQ(a.all().current, 2048);
  EXPECT_EQ(a.all().peak, 2560);
  EXPECT_EQ(a.pools[1].current, 0);
  EXPECT_EQ(a.pools[1].peak, 512);
  EXPECT_EQ(a.pools[2].allocated, 2048);
}

TEST(DeviceStats, FlattenHas122SortedKeys) {
  DeviceStats s;
  s.max_split_size = -1;
  s.num_ooms = 3;
  s.segment.increase(true, 1);
  auto flat = flatten(s);
  EXPECT_EQ(flat.size(), 122u);
  EXPECT_EQ(flat.begin()->first, "active.all.allocated");
  EXPECT_EQ(flat.rbegin()->first, "segment.small_pool.peak");
  EXPECT_EQ(flat.at("max_split_size"), -1);
  EXPECT_EQ(flat.at("num_ooms"), 3);
  EXPECT_EQ(flat.at("segment.small_pool.current"), 1);
  EXPECT_EQ(flat.at("segment.all.peak"), 1);
  EXPECT_EQ(flat.count("oversize_segments.freed"), 1u);
  EXPECT_EQ(flat.count("requested_bytes.large_pool.freed"), 1u);
}

TEST(DeviceStats, ResetsTouchOnlyWhatTheSpecSays) {
  DeviceStats s;
  s.allocated_bytes.increase(false, 4096);
  s.allocated_bytes.decrease(false, 1024);
  s.oversize_segments.increase(2);
  s.num_alloc_retries = s.num_ooms = s.num_sync_all_streams = s.num_device_alloc =
      s.num_device_free = 1;
  s.max_split_size = 64;
  s.reset_peak();
  EXPECT_EQ(s.allocated_bytes.all().peak, 3072);
  EXPECT_EQ(s.allocated_bytes.all().allocated, 4096);
  s.reset_accumulated();
  EXPECT_EQ(s.allocated_bytes.all().allocated, 0);
  EXPECT_EQ(s.allocated_bytes.all().freed, 0);
  EXPECT_EQ(s.allocated_bytes.all().current, 3072);
  EXPECT_EQ(s.oversize_segments.allocated, 0);
  EXPECT_EQ(s.oversize_segments.current, 2);
  EXPECT_EQ(s.num_alloc_retries + s.num_ooms + s.num_sync_all_streams + s.num_device_alloc +
                s.num_device_free,
            0);
  EXPECT_EQ(s.max_split_size, 64);
}

}  // namespace
}  // namespace accel::detail::alloc
