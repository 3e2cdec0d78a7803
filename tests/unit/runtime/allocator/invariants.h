#pragma once
// The memory-stat invariants (non-negative stats, peak >= current, all = small + large,
// allocated <= active <= reserved, ..., stats rebuilt from the snapshot equal the live ones)
// checked against one device allocator's statistics and snapshot, for unit tests after scripted
// sequences and for the property tests after every generated step.
//
// check_invariants returns one sentence per violated invariant ("inv 5: allocated_bytes
// (1024) > active_bytes (512) in pool all"); empty when every one holds. Stats and snapshot
// must come from the same quiescent moment (no call in flight).

#include <string>
#include <vector>

#include "accel/memory.h"
#include "allocator/device_caching_allocator.h"
#include "allocator/device_stats.h"

namespace accel::detail::alloc::testing {

class FakeDeviceProvider;

struct InvariantOptions {
  // Inv 2 and 9 hold in their simple form (current == allocated - freed) only while
  // reset_accumulated_stats has never been called.
  bool no_accumulated_reset = true;
  // When set: reserved_bytes.all.current == provider->used_bytes() (what the driver holds).
  const FakeDeviceProvider* provider = nullptr;
  // The allocator has made expandable segments (even if none is mapped now): their pages
  // move num_device_alloc/free but not the segment statistic (inv 9 and the segment count
  // of inv 14 do not apply).
  bool expandable_segments = false;
};

std::vector<std::string> check_invariants(const DeviceStats& stats,
                                          const std::vector<SegmentSnapshot>& segments,
                                          const InvariantOptions& options = {});
std::vector<std::string> check_invariants(const DeviceCachingAllocator& allocator,
                                          const InvariantOptions& options = {});

// All the sentences joined by newlines (for EXPECT messages); "" when none.
std::string join(const std::vector<std::string>& violations);

}  // namespace accel::detail::alloc::testing
