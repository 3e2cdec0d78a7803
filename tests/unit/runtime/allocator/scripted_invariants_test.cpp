// The allocator invariants (invariants.h) after every step of long scripted sequences (a fixed-seed
// generator of allocate / free / record_stream / stream work / empty_cache / resets over three
// streams), in the default and the expandable configuration, and the empty_cache baseline (inv 11,
// 12) at the end. The property tests explore the same space with shrinking.
#include <gtest/gtest.h>

#include <random>

#include "allocator_harness.h"

namespace accel::detail::alloc::testing {
namespace {

void run_script(AllocatorConfig config, std::uint32_t seed, int steps) {
  AllocatorHarness h({.capacity_bytes = 256 * kMiB}, config);
  std::mt19937 rng(seed);
  std::vector<std::uint64_t> live;
  bool accumulated_reset = false;
  const std::size_t sizes[] = {1, 511, 512, 4000, 65536, kMiB, kMiB + 1, 3 * kMiB, 11 * kMiB,
                               25 * kMiB};
  for (int step = 0; step < steps; ++step) {
    int op = static_cast<int>(rng() % 100);
    StreamId stream = static_cast<StreamId>(rng() % 3);
    if (op < 45) {
      std::size_t bytes = sizes[rng() % std::size(sizes)] + rng() % 300;
      try {
        live.push_back(h.alloc(bytes, stream));
      } catch (const OutOfMemoryError&) {
      }
    } else if (op < 80 && !live.empty()) {
      std::size_t i = rng() % live.size();
      h.free(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else if (op < 88 && !live.empty()) {
      h.allocator->record_stream(live[rng() % live.size()], 10 + stream);
      h.fake->enqueue_work(10 + stream);
    } else if (op < 94) {
      h.fake->complete_work(10 + stream);
    } else if (op < 97) {
      std::int64_t peak = h.stat("reserved_bytes.all.peak");
      std::int64_t reserved = h.stat("reserved_bytes.all.current");
      std::int64_t syncs = h.stat("num_sync_all_streams");
      h.allocator->empty_cache();
      ASSERT_EQ(h.stat("reserved_bytes.all.peak"), peak) << "inv 12 at step " << step;
      ASSERT_LE(h.stat("reserved_bytes.all.current"), reserved) << "inv 12 at step " << step;
      if (!accumulated_reset) {
        ASSERT_EQ(h.stat("num_sync_all_streams"), syncs + 1) << "inv 12 at step " << step;
      }
    } else if (op < 99) {
      h.allocator->reset_peak_stats();
      ASSERT_EQ(h.stat("allocated_bytes.all.peak"), h.stat("allocated_bytes.all.current"));
    } else {
      h.allocator->reset_accumulated_stats();
      accumulated_reset = true;
    }
    ASSERT_EQ(h.violations(accumulated_reset == false), "") << "after step " << step;
  }
  for (std::uint64_t address : live) h.free(address);
  h.allocator->empty_cache();
  EXPECT_EQ(h.stat("reserved_bytes.all.current"), 0);  // inv 11
  EXPECT_EQ(h.stat("segment.all.current"), 0);
  EXPECT_EQ(h.stat("inactive_split.all.current"), 0);
  EXPECT_EQ(h.fake->used_bytes(), 0u);
  EXPECT_EQ(h.violations(accumulated_reset == false), "");
}

TEST(ScriptedInvariants, DefaultSettings) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) run_script({}, seed, 1500);
}

TEST(ScriptedInvariants, MaxSplitSizeAndRoundupDivisions) {
  AllocatorConfig config;
  config.max_split_size = 24 * kMiB;
  config.roundup_power2_divisions.fill(4);
  for (std::uint32_t seed = 11; seed <= 15; ++seed) run_script(config, seed, 1500);
}

TEST(ScriptedInvariants, ExpandableSegments) {
  AllocatorConfig config;
  config.expandable_segments = true;
  for (std::uint32_t seed = 21; seed <= 25; ++seed) run_script(config, seed, 1500);
}

}  // namespace
}  // namespace accel::detail::alloc::testing
