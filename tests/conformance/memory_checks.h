#pragma once
// Checks the memory conformance tests share: PyTorch's _check_memory_stat_consistency
// (test/test_cuda.py: the *.current statistics rebuilt from
// memory_snapshot() equal memory_stats() exactly) and small helpers. Header-only; for use
// inside run_isolated bodies.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>

#include "accel/memory.h"

namespace accel::test {

inline constexpr std::int64_t kMiB = 1024 * 1024;

// Invariant 14 for `device`: per pool ("small_pool", "large_pool", and "all"), the segment
// count (of non-expandable segments), total/allocated/active/requested sizes, the active_allocated
// and active blocks, and the inactive blocks of multi-block non-expandable segments, against the
// stats.
inline ::testing::AssertionResult memory_stats_match_snapshot(int device) {
  std::map<std::string, std::int64_t> rebuilt;
  for (const char* pool : {"all", "small_pool", "large_pool"}) {
    for (const char* stat : {"segment", "reserved_bytes", "allocated_bytes", "active_bytes",
                             "requested_bytes", "allocation", "active", "inactive_split",
                             "inactive_split_bytes"}) {
      rebuilt[std::string(stat) + "." + pool + ".current"] = 0;
    }
  }
  const MemorySnapshot snapshot = memory_snapshot();
  for (const SegmentSnapshot& segment : snapshot.segments) {
    if (segment.device != device) continue;
    for (const std::string& pool : {std::string("all"), segment.segment_type + "_pool"}) {
      auto add = [&](const char* stat, std::int64_t value) {
        rebuilt[std::string(stat) + "." + pool + ".current"] += value;
      };
      // Expandable segments grow by pages, which move reserved bytes but not the
      // segment statistic (as in PyTorch), so only ordinary segments are counted.
      if (!segment.is_expandable) add("segment", 1);
      add("reserved_bytes", static_cast<std::int64_t>(segment.total_size));
      add("allocated_bytes", static_cast<std::int64_t>(segment.allocated_size));
      add("active_bytes", static_cast<std::int64_t>(segment.active_size));
      add("requested_bytes", static_cast<std::int64_t>(segment.requested_size));
      std::size_t active_requested = 0;
      for (const BlockSnapshot& block : segment.blocks) {
        if (block.state == "active_allocated") add("allocation", 1);
        if (block.state.rfind("active_", 0) == 0) {
          add("active", 1);
          active_requested += block.requested_size;
        }
        if (block.state == "inactive" && segment.blocks.size() > 1 && !segment.is_expandable) {
          add("inactive_split", 1);
          add("inactive_split_bytes", static_cast<std::int64_t>(block.size));
        }
      }
      if (active_requested != segment.requested_size) {
        return ::testing::AssertionFailure()
               << "segment 0x" << std::hex << segment.address << std::dec
               << ": its active blocks request " << active_requested
               << " bytes, the segment says " << segment.requested_size;
      }
    }
  }
  const MemoryStats stats = memory_stats(device);
  for (const auto& [key, value] : rebuilt) {
    auto it = stats.find(key);
    if (it == stats.end()) return ::testing::AssertionFailure() << "no statistic " << key;
    if (it->second != value) {
      return ::testing::AssertionFailure() << key << " = " << it->second
                                           << " but the snapshot of device " << device
                                           << " gives " << value;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace accel::test
