#pragma once
// Replaying a trace (trace.h) against the caching allocator (DeviceCachingAllocator, the
// runtime's one device allocator) on a SimulatedDevice of a given capacity.
//
// Every allocate event calls allocate(bytes, stream) and every free event free() in
// trace order, with the trace's streams as distinct allocator streams. The replay stops at
// the first OutOfMemoryError (the allocator's whole retry chain has run by then). Figures
// come from the allocator's own statistics (allocated_bytes / reserved_bytes .all): peak
// allocated and reserved, and the state at the peak -- the first event after which
// allocated bytes reached their maximum: reserved minus allocated and the largest free
// cached block there (from a second replay stopped at that event, so the first pass
// costs one stats read per allocation and no snapshots).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "allocator/allocator_config.h"
#include "simulated_device.h"
#include "trace.h"

namespace accel::replay {

struct ReplayOptions {
  std::uint64_t capacity = 0;
  std::uint64_t granularity = kDefaultGranularity;
  detail::alloc::AllocatorConfig config;
  // Compute the state at the peak (a second, partial replay). Off for bisection runs.
  bool fragmentation = true;
  // Called now and then with (events replayed, total events).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct OomReport {
  std::uint64_t event_index = 0;  // 0-based index into Trace::events
  std::uint64_t line = 0;         // the event's line in the trace file
  std::uint64_t requested_bytes = 0;
  std::uint32_t stream = 0;       // dense stream index
  std::string message;            // the allocator's OutOfMemoryError message
};

struct ReplayResult {
  std::uint64_t events_replayed = 0;
  std::int64_t peak_allocated = 0;  // allocated_bytes.all.peak
  std::int64_t peak_reserved = 0;   // reserved_bytes.all.peak
  std::int64_t peak_requested = 0;  // requested_bytes.all.peak
  std::int64_t device_allocations = 0;  // num_device_alloc: segments (or pages) the driver gave
  // At the peak of allocated bytes (only with ReplayOptions::fragmentation):
  std::uint64_t peak_event_index = 0;
  std::int64_t reserved_at_peak = 0;
  std::int64_t allocated_at_peak = 0;
  std::uint64_t largest_free_block_at_peak = 0;
  std::uint64_t driver_peak_bytes = 0;  // the simulated device's peak bytes in use
  std::optional<OomReport> oom;
};

ReplayResult run_replay(const Trace& trace, const ReplayOptions& options);

// The smallest capacity, a multiple of options.granularity, that replays `trace` without
// OOM. Whether a replay runs out of memory is not monotone in the capacity (the retry chain
// releases the cache at different moments: tests/data/snapshot.json runs in 150 MiB, not in
// 152 MiB, and again in 154 MiB), so bisection alone can miss the smallest: bisection
// between a capacity known to fail (below the trace's peak of live requested bytes) and
// one that succeeds (found by doubling) bounds it, then every capacity between the lower
// bound and the bisection's answer is tried in increasing order (docs/REPLAY.md). TraceError,
// naming the limit in bytes and binary units, when even kMaxSearchedCapacity fails or the
// trace holds more than that live at once.
inline constexpr std::uint64_t kMaxSearchedCapacity = std::uint64_t{1} << 48;  // 256 TiB

struct MinCapacity {
  std::uint64_t capacity = 0;    // the smallest that runs
  std::uint64_t bisection = 0;   // what bisection alone found (>= capacity)
  std::uint64_t replays = 0;     // replays made
};
MinCapacity find_min_capacity(const Trace& trace, const ReplayOptions& options);

// The largest sum of live requested bytes over the trace (a lower bound of any capacity
// that runs it); UINT64_MAX when it is larger.
std::uint64_t peak_live_requested(const Trace& trace);

}  // namespace accel::replay
