#pragma once
// The pinned host allocator's statistics (torch.cuda.host_memory_stats): four counters
// with current/peak/allocated/freed, the provider call counts, and two duration statistics
// for the provider's allocate and free calls. Values only, not thread-safe (the owning
// allocator's lock guards them).
//
// Peaks here are exact (the maximum `current` since the last peak reset), where PyTorch's
// are best-effort sums of per-bucket peaks; an exact peak is never below PyTorch's view of
// the same program's true maximum and makes the invariants testable.

#include <cstdint>
#include <map>
#include <string>

#include "allocator/device_stats.h"

namespace accel::detail::alloc {

// The same counter as the device allocator's (device_stats.h): one update rule for both.
using HostStat = Stat;

// Durations of provider calls in microseconds. min and max are "peak" values: a peak reset
// clears them (0 until the next call); an accumulated reset clears total and count.
// avg = total / count (integer division), 0 when count is 0.
struct DurationStat {
  std::int64_t total = 0;
  std::int64_t max = 0;
  std::int64_t min = 0;
  std::int64_t count = 0;

  void add(std::int64_t microseconds) noexcept;
  void reset_peak() noexcept;
  void reset_accumulated() noexcept { total = count = 0; }
  std::int64_t avg() const noexcept { return count == 0 ? 0 : total / count; }

 private:
  bool extrema_seen_ = false;  // min/max hold a call's duration (0 is a real duration too)
};

struct HostStats {
  HostStat allocations;      // blocks the allocator owns (checked out + cached + pending)
  HostStat allocated_bytes;  // their (power-of-two) sizes
  HostStat active_requests;  // blocks checked out by callers
  HostStat active_bytes;     // their sizes
  std::int64_t num_host_alloc = 0;  // provider allocate calls that succeeded
  std::int64_t num_host_free = 0;   // provider deallocate calls that succeeded
  DurationStat host_alloc_time;
  DurationStat host_free_time;

  void reset_peak() noexcept;
  void reset_accumulated() noexcept;
};

// The 28 flat keys of torch.cuda.host_memory_stats, sorted: "active_bytes.allocated", ...,
// "num_host_free".
std::map<std::string, std::int64_t> flatten(const HostStats& stats);

}  // namespace accel::detail::alloc
