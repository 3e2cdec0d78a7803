// One lock per device allocator: two threads allocating and freeing on their own streams
// leave every statistic consistent and never share a live address.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

TEST(Threads, TwoThreadsKeepStatsConsistentAndAddressesUnique) {
  AllocatorHarness h;
  std::vector<std::uint64_t> kept[2];
  auto work = [&](int t) {
    for (int i = 0; i < 2000; ++i) {
      std::uint64_t a = h.allocator->allocate(512 + 512 * (i % 7), t, h.site);
      if (i % 3 == 0) {
        kept[t].push_back(a);
      } else {
        h.allocator->free(a, h.site);
      }
    }
  };
  std::thread first(work, 0);
  std::thread second(work, 1);
  first.join();
  second.join();
  std::set<std::uint64_t> unique(kept[0].begin(), kept[0].end());
  unique.insert(kept[1].begin(), kept[1].end());
  EXPECT_EQ(unique.size(), kept[0].size() + kept[1].size());
  EXPECT_EQ(h.stat("allocation.all.current"),
            static_cast<std::int64_t>(kept[0].size() + kept[1].size()));
  EXPECT_EQ(h.violations(), "");
}

}  // namespace
}  // namespace accel::detail::alloc::testing
