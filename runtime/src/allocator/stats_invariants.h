#pragma once
// The device allocator's invariants, as checks over what a caller can observe: the flat
// statistics (122 keys, accel::MemoryStats) and a snapshot. One copy serves everyone who
// checks them after every step: the property tests (on the allocator core and through the
// public API) and the scenario runner's `invariants: memory_stats` setting
// (tools/scenario/steps_memory.cpp). Values only; no allocator state is read here, so the
// checks never change what they observe. Not thread-safe (a StatHistory belongs to one
// observer).
//
// Each check returns the violations it found, one readable line each ("invariant 5:
// allocated_bytes.all.current 2048 > active_bytes.all.current 1024"), empty when all hold,
// so a failing property names the rule and the numbers.
//
// Stateless checks look at one moment (invariants 1, 4-10, 14 and the block layout);
// StatHistory follows the statistics across steps for the rules that need the past
// (2: current = current at the last accumulated reset + allocated - freed; 3 and the peak
// rule: every peak is the maximum of every current observed since the last peak reset).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "accel/memory.h"

namespace accel::detail::alloc::invariants {

using FlatStats = std::map<std::string, std::int64_t>;
using Violations = std::vector<std::string>;

// The value of `key` in flat statistics (0 when absent), as the properties compare it with
// byte counts.
std::uint64_t stat_bytes(const FlatStats& stats, const char* key);
// Violations as indented lines, to follow a failure message.
std::string join_violations(const Violations& violations);

// The 29 Stats of torch.cuda.memory_stats by prefix ("allocated_bytes.all", ...,
// "oversize_segments").
const std::vector<std::string>& stat_prefixes();

struct LayoutRules {
  bool expandable = false;  // segments made with expandable_segments:True
  int device = 0;           // the snapshot's segments of other devices are ignored
};

// Invariants 1, 4, 5, 6 (aggregate part), 7 (inequality), 9 (not expandable), and every key
// of torch.cuda.memory_stats present, no other.
Violations check_stats(const FlatStats& stats, const LayoutRules& rules);

// Invariants 8, 10 and 14 (the statistics rebuilt from the snapshot equal the live ones),
// 6 (per block), the block layout (blocks tile their segment by address, no two segments
// overlap, sizes are multiples of 512) and the segment kinds (small = 2 MiB).
Violations check_snapshot(const FlatStats& stats, const std::vector<SegmentSnapshot>& segments,
                          const LayoutRules& rules);

// The ".current" value of every pooled statistic (27 keys: "allocated_bytes.all.current",
// ...) rebuilt from `device`'s segments of a snapshot, by the allocator's rules (invariant
// 14): what a snapshot says of the statistics at the moment it was taken. Segments of type
// "small" count in the small pool, any other in the large pool.
FlatStats current_from_segments(const std::vector<SegmentSnapshot>& segments, int device);

class StatHistory {
 public:
  // The first observation (a fresh allocator, or the runtime as the test found it).
  explicit StatHistory(const FlatStats& start);
  // After each step: invariants 2 and 3 and the peak rule, then remembers `now`.
  Violations observe(const FlatStats& now);
  // Call after reset_peak_memory_stats / reset_accumulated_memory_stats succeeded, with
  // the stats read right after; the reset's own rules are checked here.
  Violations after_reset_peak(const FlatStats& now);
  Violations after_reset_accumulated(const FlatStats& now);

 private:
  FlatStats last_;
  std::map<std::string, std::int64_t> baseline_;      // current at the last accumulated reset
  std::map<std::string, std::int64_t> max_observed_;  // max current since the last peak reset
};

}  // namespace accel::detail::alloc::invariants
