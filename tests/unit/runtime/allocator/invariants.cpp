#include "invariants.h"

#include <array>
#include <cstdint>
#include <sstream>

#include "fake_device_provider.h"

namespace accel::detail::alloc::testing {
namespace {

constexpr std::array<const char*, kStatTypeCount> kPoolNames{"all", "small_pool", "large_pool"};

struct Checker {
  std::vector<std::string> out;
  template <class... Parts>
  void fail(const Parts&... parts) {
    std::ostringstream text;
    (text << ... << parts);
    out.push_back(text.str());
  }
};

void check_stat(Checker& c, const std::string& name, const Stat& s, bool no_reset) {
  if (s.current < 0) c.fail("inv 1: ", name, ".current < 0 (", s.current, ")");
  if (s.peak < s.current) c.fail("inv 1: ", name, ".peak (", s.peak, ") < current (", s.current, ")");
  if (s.allocated < 0) c.fail("inv 1: ", name, ".allocated < 0");
  if (s.freed < 0) c.fail("inv 1: ", name, ".freed < 0");
  if (no_reset && s.current != s.allocated - s.freed) {
    c.fail("inv 2: ", name, ".current (", s.current, ") != allocated (", s.allocated,
           ") - freed (", s.freed, ")");
  }
}

void check_array(Checker& c, const std::string& name, const StatArray& a, bool no_reset) {
  for (std::size_t p = 0; p < kStatTypeCount; ++p) {
    check_stat(c, name + "." + kPoolNames[p], a.pools[p], no_reset);
  }
  const Stat &all = a.pools[0], &small = a.pools[1], &large = a.pools[2];
  if (all.current != small.current + large.current) c.fail("inv 4: ", name, ".current: all != small + large");
  if (all.allocated != small.allocated + large.allocated) c.fail("inv 4: ", name, ".allocated: all != small + large");
  if (all.freed != small.freed + large.freed) c.fail("inv 4: ", name, ".freed: all != small + large");
  if (all.peak > small.peak + large.peak || all.peak < small.peak || all.peak < large.peak) {
    c.fail("inv 4: ", name, ".peak: all (", all.peak, ") outside [max(small, large), small + large]");
  }
}

// Per-pool sums rebuilt from the snapshot (inv 14).
struct Sums {
  std::int64_t segments = 0, reserved = 0, allocated = 0, active = 0, requested = 0;
  std::int64_t allocations = 0, active_blocks = 0, inactive_split = 0, inactive_split_bytes = 0;
};

}  // namespace

std::vector<std::string> check_invariants(const DeviceStats& stats,
                                          const std::vector<SegmentSnapshot>& segments,
                                          const InvariantOptions& options) {
  Checker c;
  bool no_reset = options.no_accumulated_reset;
  const std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &stats.allocation},         {"segment", &stats.segment},
      {"active", &stats.active},                 {"inactive_split", &stats.inactive_split},
      {"allocated_bytes", &stats.allocated_bytes}, {"reserved_bytes", &stats.reserved_bytes},
      {"active_bytes", &stats.active_bytes},     {"inactive_split_bytes", &stats.inactive_split_bytes},
      {"requested_bytes", &stats.requested_bytes}};
  for (const auto& [name, array] : arrays) check_array(c, name, *array, no_reset);
  check_stat(c, "oversize_allocations", stats.oversize_allocations, no_reset);
  check_stat(c, "oversize_segments", stats.oversize_segments, no_reset);

  bool any_expandable = options.expandable_segments;
  std::array<Sums, kStatTypeCount> sums{};
  for (const SegmentSnapshot& seg : segments) {
    bool small = seg.segment_type == "small";
    if (!small && seg.segment_type != "large") {
      c.fail("snapshot: segment 0x", std::hex, seg.address, std::dec, " has type '",
             seg.segment_type, "'");
    }
    any_expandable = any_expandable || seg.is_expandable;
    std::int64_t allocated = 0, active = 0, requested = 0, total = 0;
    std::uint64_t expected_address = seg.address;
    Sums s;
    if (!seg.is_expandable) s.segments = 1;
    for (const BlockSnapshot& b : seg.blocks) {
      if (!seg.is_expandable && b.address != expected_address) {
        c.fail("snapshot: block 0x", std::hex, b.address, " does not follow its neighbour (0x",
               expected_address, ")", std::dec);
      }
      expected_address = b.address + b.size;
      total += static_cast<std::int64_t>(b.size);
      if (b.size < 512 || b.size % 512 != 0) c.fail("inv 6: block size ", b.size, " not a multiple of 512 >= 512");
      if (b.state == "active_allocated" || b.state == "active_pending_free") {
        if (b.requested_size > b.size) c.fail("inv 6: requested ", b.requested_size, " > block size ", b.size);
        active += static_cast<std::int64_t>(b.size);
        requested += static_cast<std::int64_t>(b.requested_size);
        ++s.active_blocks;
        if (b.state == "active_allocated") {
          allocated += static_cast<std::int64_t>(b.size);
          ++s.allocations;
        }
      } else if (b.state == "inactive") {
        if (!seg.is_expandable && seg.blocks.size() > 1) {
          ++s.inactive_split;
          s.inactive_split_bytes += static_cast<std::int64_t>(b.size);
        }
      } else {
        c.fail("snapshot: block state '", b.state, "'");
      }
    }
    if (total != static_cast<std::int64_t>(seg.total_size)) {
      c.fail("snapshot: segment 0x", std::hex, seg.address, std::dec, " blocks sum to ", total,
             " but total_size is ", seg.total_size);
    }
    if (allocated != static_cast<std::int64_t>(seg.allocated_size) ||
        active != static_cast<std::int64_t>(seg.active_size) ||
        requested != static_cast<std::int64_t>(seg.requested_size)) {
      c.fail("inv 14: segment 0x", std::hex, seg.address, std::dec,
             " sizes disagree with its blocks");
    }
    if (!seg.is_expandable) {
      std::size_t mib2 = 2 * kMiB;
      if (small && seg.total_size != mib2) c.fail("inv 8: small segment of ", seg.total_size, " bytes");
      if (!small && seg.total_size != 10 * mib2 &&
          (seg.total_size % mib2 != 0 || seg.total_size < 5 * mib2)) {
        c.fail("inv 8: large segment of ", seg.total_size, " bytes");
      }
    }
    s.reserved = total;
    s.allocated = allocated;
    s.active = active;
    s.requested = requested;
    for (std::size_t p : {std::size_t{0}, small ? std::size_t{1} : std::size_t{2}}) {
      Sums& t = sums[p];
      t.segments += s.segments;
      t.reserved += s.reserved;
      t.allocated += s.allocated;
      t.active += s.active;
      t.requested += s.requested;
      t.allocations += s.allocations;
      t.active_blocks += s.active_blocks;
      t.inactive_split += s.inactive_split;
      t.inactive_split_bytes += s.inactive_split_bytes;
    }
  }

  for (std::size_t p = 0; p < kStatTypeCount; ++p) {
    const char* pool = kPoolNames[p];
    auto cur = [p](const StatArray& a) { return a.pools[p].current; };
    auto expect = [&](const char* name, std::int64_t from_snapshot, std::int64_t stat) {
      if (from_snapshot != stat) {
        c.fail("inv 14: ", name, ".", pool, ".current is ", stat, " but the snapshot gives ",
               from_snapshot);
      }
    };
    const Sums& s = sums[p];
    if (!any_expandable) expect("segment", s.segments, cur(stats.segment));
    expect("reserved_bytes", s.reserved, cur(stats.reserved_bytes));
    expect("allocated_bytes", s.allocated, cur(stats.allocated_bytes));
    expect("active_bytes", s.active, cur(stats.active_bytes));
    expect("requested_bytes", s.requested, cur(stats.requested_bytes));
    expect("allocation", s.allocations, cur(stats.allocation));
    expect("active", s.active_blocks, cur(stats.active));
    expect("inactive_split", s.inactive_split, cur(stats.inactive_split));
    expect("inactive_split_bytes", s.inactive_split_bytes, cur(stats.inactive_split_bytes));

    std::int64_t allocated = cur(stats.allocated_bytes), active = cur(stats.active_bytes),
                 reserved = cur(stats.reserved_bytes);
    if (allocated > active || active > reserved) {
      c.fail("inv 5: allocated_bytes (", allocated, ") <= active_bytes (", active,
             ") <= reserved_bytes (", reserved, ") fails in pool ", pool);
    }
    if (active + cur(stats.inactive_split_bytes) > reserved) {
      c.fail("inv 5: active_bytes + inactive_split_bytes > reserved_bytes in pool ", pool);
    }
    if (cur(stats.requested_bytes) > active) c.fail("inv 6: requested_bytes > active_bytes in pool ", pool);
    if (cur(stats.allocation) > cur(stats.active)) c.fail("inv 7: allocation > active in pool ", pool);
  }
  if (no_reset && !any_expandable) {
    if (stats.num_device_alloc != stats.segment.all().allocated) {
      c.fail("inv 9: num_device_alloc (", stats.num_device_alloc, ") != segment.all.allocated (",
             stats.segment.all().allocated, ")");
    }
    if (stats.num_device_free != stats.segment.all().freed) {
      c.fail("inv 9: num_device_free (", stats.num_device_free, ") != segment.all.freed (",
             stats.segment.all().freed, ")");
    }
  }
  if (options.provider != nullptr &&
      static_cast<std::int64_t>(options.provider->used_bytes()) != stats.reserved_bytes.all().current) {
    c.fail("driver: reserved_bytes.all.current (", stats.reserved_bytes.all().current,
           ") != bytes the driver holds (", options.provider->used_bytes(), ")");
  }
  return c.out;
}

std::vector<std::string> check_invariants(const DeviceCachingAllocator& allocator,
                                          const InvariantOptions& options) {
  return check_invariants(allocator.stats(), allocator.snapshot(), options);
}

std::string join(const std::vector<std::string>& violations) {
  std::string text;
  for (const auto& v : violations) text += v + "\n";
  return text;
}

}  // namespace accel::detail::alloc::testing
