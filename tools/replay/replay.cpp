// The replay loop, the state at the peak and the capacity bisection (replay.h).
#include "replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "accel/error.h"
#include "accel_common/units.h"
#include "allocator/device_caching_allocator.h"
#include "report.h"

namespace accel::replay {
namespace {

using detail::alloc::DeviceCachingAllocator;

constexpr std::uint64_t kProgressEvery = 1u << 14;

// "281474976710656 bytes (256.00 TiB)"
std::string bytes_in_words(std::uint64_t bytes) {
  return fmt::format("{} bytes ({})", bytes, common::binary_size(bytes));
}

struct Pass {
  std::uint64_t replayed = 0;
  std::optional<OomReport> oom;
  std::int64_t best_allocated = -1;
  std::uint64_t best_index = 0;
};

// Replays events [0, stop) on `allocator`; `watch_peak` reads the stats after every
// allocation to find the first event at the peak of allocated bytes.
Pass replay_events(const Trace& trace, DeviceCachingAllocator& allocator, std::uint64_t stop,
                   bool watch_peak, const ReplayOptions& options) {
  Pass pass;
  std::vector<std::uint64_t> address(trace.allocations, 0);
  const HostFrame site{"accel-replay", 0, "replay"};
  const std::uint64_t total = trace.events.size();
  for (std::uint64_t i = 0; i < stop; ++i) {
    const TraceEvent& event = trace.events[i];
    if (event.kind == TraceEvent::Kind::kAllocate) {
      try {
        address[event.id] = allocator.allocate(event.bytes, event.stream, site);
      } catch (const OutOfMemoryError& e) {
        pass.oom = OomReport{i, event.line, event.bytes, event.stream, e.what()};
        return pass;
      }
      if (watch_peak) {
        const std::int64_t allocated = allocator.stats().allocated_bytes.all().current;
        if (allocated > pass.best_allocated) {
          pass.best_allocated = allocated;
          pass.best_index = i;
        }
      }
    } else if (address[event.id] != 0) {  // a 0-byte allocation has nothing to free
      allocator.free(address[event.id], site);
      address[event.id] = 0;
    }
    ++pass.replayed;
    if (options.progress && pass.replayed % kProgressEvery == 0) {
      options.progress(pass.replayed, total);
    }
  }
  if (options.progress) options.progress(pass.replayed, total);
  return pass;
}

std::unique_ptr<DeviceCachingAllocator> make_allocator(const ReplayOptions& options,
                                                       SimulatedDevice** device) {
  auto provider = std::make_unique<SimulatedDevice>(options.capacity, options.granularity);
  *device = provider.get();
  return std::make_unique<DeviceCachingAllocator>(std::move(provider), options.config);
}

}  // namespace

ReplayResult run_replay(const Trace& trace, const ReplayOptions& options) {
  ReplayResult result;
  SimulatedDevice* device = nullptr;
  auto allocator = make_allocator(options, &device);
  const Pass pass = replay_events(trace, *allocator, trace.events.size(),
                                  options.fragmentation, options);
  const detail::alloc::DeviceStats stats = allocator->stats();
  result.events_replayed = pass.replayed;
  result.oom = pass.oom;
  result.peak_allocated = stats.allocated_bytes.all().peak;
  result.peak_reserved = stats.reserved_bytes.all().peak;
  result.peak_requested = stats.requested_bytes.all().peak;
  result.device_allocations = stats.num_device_alloc;
  result.driver_peak_bytes = device->peak_used_bytes();
  if (!options.fragmentation || pass.best_allocated < 0) return result;

  // The state right after the first event at the peak: replay again up to it.
  ReplayOptions quiet = options;
  quiet.progress = nullptr;
  SimulatedDevice* again_device = nullptr;
  auto again = make_allocator(quiet, &again_device);
  (void)replay_events(trace, *again, pass.best_index + 1, false, quiet);
  const detail::alloc::DeviceStats at_peak = again->stats();
  result.peak_event_index = pass.best_index;
  result.allocated_at_peak = at_peak.allocated_bytes.all().current;
  result.reserved_at_peak = at_peak.reserved_bytes.all().current;
  for (const SegmentSnapshot& segment : again->snapshot()) {
    for (const BlockSnapshot& block : segment.blocks) {
      if (block.state == "inactive") {
        result.largest_free_block_at_peak =
            std::max<std::uint64_t>(result.largest_free_block_at_peak, block.size);
      }
    }
  }
  return result;
}

std::uint64_t peak_live_requested(const Trace& trace) {
  // 128-bit sums: a trace's sizes may add up past 2^64 (each is a 64-bit value), and a
  // wrapped sum would hide the peak.
  unsigned __int128 live = 0;
  unsigned __int128 peak = 0;
  for (const TraceEvent& event : trace.events) {
    if (event.kind == TraceEvent::Kind::kAllocate) {
      live += event.bytes;
      peak = std::max(peak, live);
    } else {
      live -= event.bytes;
    }
  }
  return peak > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                          : static_cast<std::uint64_t>(peak);
}

MinCapacity find_min_capacity(const Trace& trace, const ReplayOptions& options) {
  const std::uint64_t g = options.granularity;
  MinCapacity found;
  ReplayOptions probe = options;
  probe.fragmentation = false;
  probe.progress = nullptr;
  auto fits = [&](std::uint64_t granules) {
    ++found.replays;
    probe.capacity = granules * g;
    return !run_replay(trace, probe).oom.has_value();
  };
  // Every capacity tried is at most kMaxSearchedCapacity, a whole number of granules, so
  // `granules * g` never overflows.
  const std::uint64_t limit = kMaxSearchedCapacity / g;
  const std::uint64_t peak = peak_live_requested(trace);
  if (peak > limit * g) {
    throw TraceError(fmt::format(
        "{}: --find-min-capacity: the trace holds {} live at once (its peak of live requested "
        "bytes), more than the largest capacity searched, {}",
        trace.file, bytes_in_words(peak), bytes_in_words(limit * g)));
  }
  // `floor` granules fail (0 granules by definition; fewer bytes than the peak of live
  // requested bytes by arithmetic), `high` granules succeed.
  const std::uint64_t peak_granules = peak / g;
  const std::uint64_t floor = peak_granules > 0 ? peak_granules - 1 : 0;
  std::uint64_t low = floor;
  std::uint64_t high = std::min(std::max<std::uint64_t>(peak_granules + 1, 1), limit);
  while (!fits(high)) {
    low = high;
    if (high >= limit) {
      throw TraceError(fmt::format("{}: --find-min-capacity: no capacity up to {} replays the "
                                   "trace without out of memory",
                                   trace.file, bytes_in_words(limit * g)));
    }
    high = std::min(high * 2, limit);
  }
  while (high - low > 1) {
    const std::uint64_t mid = low + (high - low) / 2;
    (fits(mid) ? high : low) = mid;
  }
  found.bisection = high * g;
  found.capacity = found.bisection;
  // Not monotone: the first capacity above the floor that runs, in increasing order.
  for (std::uint64_t granules = floor + 1; granules < high; ++granules) {
    if (fits(granules)) {
      found.capacity = granules * g;
      break;
    }
  }
  return found;
}

}  // namespace accel::replay
