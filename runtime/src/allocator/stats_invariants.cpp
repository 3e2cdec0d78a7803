#include "allocator/stats_invariants.h"

#include <algorithm>
#include <array>
#include <sstream>

namespace accel::detail::alloc::invariants {
std::uint64_t stat_bytes(const FlatStats& stats, const char* key) {
  const auto it = stats.find(key);
  return it == stats.end() ? 0 : static_cast<std::uint64_t>(it->second);
}

std::string join_violations(const Violations& violations) {
  std::string text;
  for (const std::string& line : violations) text += "\n    " + line;
  return text;
}

namespace {

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::array<const char*, 9> kArrays = {
    "active",          "active_bytes",   "allocated_bytes",
    "allocation",      "inactive_split", "inactive_split_bytes",
    "requested_bytes", "reserved_bytes", "segment"};
constexpr std::array<const char*, 3> kPools = {"all", "small_pool", "large_pool"};
constexpr std::array<const char*, 4> kFields = {"current", "peak", "allocated", "freed"};
constexpr std::array<const char*, 6> kScalars = {"max_split_size",   "num_alloc_retries",
                                                 "num_device_alloc", "num_device_free",
                                                 "num_ooms",         "num_sync_all_streams"};
constexpr std::array<const char*, 5> kAccumulatedScalars = {
    "num_alloc_retries", "num_device_alloc", "num_device_free", "num_ooms", "num_sync_all_streams"};

std::int64_t get(const FlatStats& s, const std::string& key) {
  const auto it = s.find(key);
  return it == s.end() ? 0 : it->second;
}

// Adds "invariant <n>: <text>" when `ok` is false.
class Collector {
 public:
  explicit Collector(Violations& out) : out_(out) {}
  template <class... Parts>
  void expect(bool ok, const char* rule, const Parts&... parts) {
    if (ok) return;
    std::ostringstream text;
    text << rule << ": ";
    (text << ... << parts);
    out_.push_back(text.str());
  }

 private:
  Violations& out_;
};

// One segment's contribution to the current statistics (invariant 14), by the rules the
// allocator keeps them: an allocated block is an allocation, every block not inactive is
// active (a block whose free waits for stream events is active but not allocated), and an
// inactive block of a split, non-expandable segment is "inactive split" (invariant 10).
struct SegmentCounts {
  std::int64_t allocated_bytes = 0, active_bytes = 0, requested_bytes = 0, allocation = 0,
               active = 0, inactive_split = 0, inactive_split_bytes = 0;
};

SegmentCounts segment_counts(const SegmentSnapshot& seg) {
  SegmentCounts r;
  for (const BlockSnapshot& b : seg.blocks) {
    const auto size = static_cast<std::int64_t>(b.size);
    if (b.state == "active_allocated") {
      ++r.allocation;
      r.allocated_bytes += size;
    }
    if (b.state != "inactive") {
      ++r.active;
      r.active_bytes += size;
      r.requested_bytes += static_cast<std::int64_t>(b.requested_size);
    } else if (seg.blocks.size() > 1 && !seg.is_expandable) {
      ++r.inactive_split;
      r.inactive_split_bytes += size;
    }
  }
  return r;
}

}  // namespace

FlatStats current_from_segments(const std::vector<SegmentSnapshot>& segments, int device) {
  FlatStats out;
  for (const char* a : kArrays) {
    for (const char* pool : kPools) out[std::string(a) + "." + pool + ".current"] = 0;
  }
  for (const SegmentSnapshot& seg : segments) {
    if (seg.device != device) continue;
    const SegmentCounts r = segment_counts(seg);
    const std::pair<const char*, std::int64_t> rows[] = {
        {"reserved_bytes", static_cast<std::int64_t>(seg.total_size)},
        {"allocated_bytes", r.allocated_bytes},
        {"active_bytes", r.active_bytes},
        {"requested_bytes", r.requested_bytes},
        {"allocation", r.allocation},
        {"active", r.active},
        {"inactive_split", r.inactive_split},
        {"inactive_split_bytes", r.inactive_split_bytes},
        {"segment", 1}};
    const char* pool = seg.segment_type == "small" ? "small_pool" : "large_pool";
    for (const auto& [key, value] : rows) {
      out[std::string(key) + ".all.current"] += value;
      out[std::string(key) + "." + pool + ".current"] += value;
    }
  }
  return out;
}

const std::vector<std::string>& stat_prefixes() {
  static const std::vector<std::string> prefixes = [] {
    std::vector<std::string> p;
    for (const char* a : kArrays) {
      for (const char* pool : kPools) p.push_back(std::string(a) + "." + pool);
    }
    p.emplace_back("oversize_allocations");
    p.emplace_back("oversize_segments");
    return p;
  }();
  return prefixes;
}

Violations check_stats(const FlatStats& s, const LayoutRules& rules) {
  Violations out;
  Collector c(out);
  // The key set of torch.cuda.memory_stats: 122 keys exactly.
  std::size_t expected_keys = kScalars.size();
  for (const std::string& p : stat_prefixes()) {
    for (const char* f : kFields) {
      ++expected_keys;
      c.expect(s.contains(p + "." + f), "keys", "missing ", p, ".", f);
    }
  }
  for (const char* k : kScalars) c.expect(s.contains(k), "keys", "missing ", k);
  c.expect(s.size() == expected_keys, "keys", s.size(), " keys, expected ", expected_keys);

  // 1: every Stat non-negative, peak >= current.
  for (const std::string& p : stat_prefixes()) {
    const std::int64_t cur = get(s, p + ".current");
    c.expect(cur >= 0, "invariant 1", p, ".current ", cur, " < 0");
    c.expect(get(s, p + ".peak") >= cur, "invariant 1", p, ".peak ", get(s, p + ".peak"),
             " < current ", cur);
    c.expect(get(s, p + ".allocated") >= 0, "invariant 1", p, ".allocated < 0");
    c.expect(get(s, p + ".freed") >= 0, "invariant 1", p, ".freed < 0");
  }
  for (const char* k : kAccumulatedScalars) c.expect(get(s, k) >= 0, "invariant 1", k, " < 0");

  // 4: all = small + large for current, allocated, freed; the peak lies between.
  for (const char* a : kArrays) {
    const std::string x(a);
    for (const char* f : {"current", "allocated", "freed"}) {
      const std::int64_t all = get(s, x + ".all." + f);
      const std::int64_t parts = get(s, x + ".small_pool." + f) + get(s, x + ".large_pool." + f);
      c.expect(all == parts, "invariant 4", x, ".all.", f, " ", all, " != small + large ", parts);
    }
    const std::int64_t peak = get(s, x + ".all.peak");
    const std::int64_t small = get(s, x + ".small_pool.peak");
    const std::int64_t large = get(s, x + ".large_pool.peak");
    c.expect(peak <= small + large && peak >= small && peak >= large, "invariant 4", x,
             ".all.peak ", peak, " outside [max, sum] of the pools' peaks ", small, ", ", large);
  }

  // 5, 6, 7 per pool.
  for (const char* pool : kPools) {
    const std::string p(pool);
    const std::int64_t allocated = get(s, "allocated_bytes." + p + ".current");
    const std::int64_t active = get(s, "active_bytes." + p + ".current");
    const std::int64_t reserved = get(s, "reserved_bytes." + p + ".current");
    const std::int64_t inactive = get(s, "inactive_split_bytes." + p + ".current");
    const std::int64_t requested = get(s, "requested_bytes." + p + ".current");
    c.expect(allocated <= active, "invariant 5", "allocated_bytes.", p, ".current ", allocated,
             " > active_bytes ", active);
    c.expect(active <= reserved, "invariant 5", "active_bytes.", p, ".current ", active,
             " > reserved_bytes ", reserved);
    c.expect(active + inactive <= reserved, "invariant 5", "active + inactive_split bytes (", p,
             ") ", active + inactive, " > reserved ", reserved);
    c.expect(requested <= active, "invariant 6", "requested_bytes.", p, ".current ", requested,
             " > active_bytes ", active);
    c.expect(get(s, "allocation." + p + ".current") <= get(s, "active." + p + ".current"),
             "invariant 7", "allocation.", p, ".current > active.", p, ".current");
  }

  // 9: one driver allocation per segment (not with expandable segments, which map pages).
  if (!rules.expandable) {
    c.expect(get(s, "num_device_alloc") == get(s, "segment.all.allocated"), "invariant 9",
             "num_device_alloc ", get(s, "num_device_alloc"), " != segment.all.allocated ",
             get(s, "segment.all.allocated"));
    c.expect(get(s, "num_device_free") == get(s, "segment.all.freed"), "invariant 9",
             "num_device_free ", get(s, "num_device_free"), " != segment.all.freed ",
             get(s, "segment.all.freed"));
  }
  return out;
}

Violations check_snapshot(const FlatStats& s, const std::vector<SegmentSnapshot>& segments,
                          const LayoutRules& rules) {
  Violations out;
  Collector c(out);
  std::uint64_t previous_end = 0;
  for (const SegmentSnapshot& seg : segments) {
    if (seg.device != rules.device) continue;
    std::ostringstream name_text;
    name_text << "segment 0x" << std::hex << seg.address << std::dec;
    const std::string name = name_text.str();
    const bool small = seg.segment_type == "small";
    c.expect(small || seg.segment_type == "large", "snapshot", name, " has type '",
             seg.segment_type, "'");
    c.expect(seg.address >= previous_end, "layout", name, " overlaps the segment before it");
    previous_end = seg.address + seg.total_size;
    c.expect(seg.is_expandable == rules.expandable, "layout", name, " is_expandable ",
             seg.is_expandable);
    // 8: segment sizes (PyTorch's segment policy).
    const auto total = static_cast<std::int64_t>(seg.total_size);
    if (!seg.is_expandable) {
      if (small) {
        c.expect(total == 2 * kMiB, "invariant 8", name, ": a small segment of ", total);
      } else {
        c.expect(total == 20 * kMiB || (total % (2 * kMiB) == 0 && total >= 10 * kMiB),
                 "invariant 8", name, ": a large segment of ", total);
      }
    }
    std::uint64_t cursor = seg.address;
    std::size_t tiled = 0;
    for (const BlockSnapshot& b : seg.blocks) {
      std::ostringstream block_text;
      block_text << name << " block 0x" << std::hex << b.address << std::dec << " (" << b.size
                 << " bytes, " << b.state << ")";
      const std::string block = block_text.str();
      if (!seg.is_expandable) {
        c.expect(b.address == cursor, "layout", block, " does not start where the last ended");
      } else {
        c.expect(b.address >= cursor, "layout", block, " overlaps the block before it");
      }
      cursor = b.address + b.size;
      tiled += b.size;
      c.expect(b.size >= 512 && b.size % 512 == 0, "invariant 6", block,
               ": size not a multiple of 512");
      c.expect(b.state == "active_allocated" || b.state == "active_pending_free" ||
                   b.state == "inactive",
               "snapshot", block, ": unknown state");
      if (b.state != "inactive") {
        c.expect(b.requested_size <= b.size, "invariant 6", block, ": requested ", b.requested_size,
                 " > size");
      }
    }
    if (!seg.is_expandable) {
      c.expect(tiled == seg.total_size, "layout", name, ": blocks cover ", tiled, " of ",
               seg.total_size, " bytes");
    } else {
      c.expect(cursor <= seg.address + seg.total_size, "layout", name, ": blocks run past its end");
    }
    const SegmentCounts r = segment_counts(seg);
    const std::int64_t allocated = r.allocated_bytes, active = r.active_bytes,
                       requested = r.requested_bytes;
    c.expect(static_cast<std::int64_t>(seg.allocated_size) == allocated, "invariant 14", name,
             " allocated_size ", seg.allocated_size, " != its blocks' ", allocated);
    c.expect(static_cast<std::int64_t>(seg.active_size) == active, "invariant 14", name,
             " active_size ", seg.active_size, " != its blocks' ", active);
    c.expect(static_cast<std::int64_t>(seg.requested_size) == requested, "invariant 14", name,
             " requested_size ", seg.requested_size, " != its blocks' ", requested);
  }
  // 14: the snapshot rebuilds the current statistics exactly.
  for (const auto& [k, value] : current_from_segments(segments, rules.device)) {
    // Expandable segments map pages rather than making segments (as in PyTorch).
    if (rules.expandable && k.starts_with("segment.")) continue;
    c.expect(get(s, k) == value, "invariant 14", k, " ", get(s, k),
             " != rebuilt from the snapshot ", value);
  }
  return out;
}

StatHistory::StatHistory(const FlatStats& start) : last_(start) {
  for (const std::string& p : stat_prefixes()) {
    baseline_[p] =
        get(start, p + ".current") - get(start, p + ".allocated") + get(start, p + ".freed");
    max_observed_[p] = get(start, p + ".peak");
  }
}

Violations StatHistory::observe(const FlatStats& now) {
  Violations out;
  Collector c(out);
  for (const std::string& p : stat_prefixes()) {
    const std::int64_t cur = get(now, p + ".current");
    const std::int64_t rebuilt = baseline_[p] + get(now, p + ".allocated") - get(now, p + ".freed");
    c.expect(cur == rebuilt, "invariant 2", p, ".current ", cur,
             " != current at the last accumulated reset + allocated - freed = ", rebuilt);
    c.expect(get(now, p + ".peak") >= get(last_, p + ".peak"), "invariant 3", p, ".peak fell from ",
             get(last_, p + ".peak"), " to ", get(now, p + ".peak"));
    max_observed_[p] = std::max(max_observed_[p], cur);
    // Note [Peaks between observations]: inside one call a statistic may rise and fall
    // again where the caller cannot observe it: empty_cache and an allocation first free
    // the blocks whose events completed (inactive_split rises as they join the free set)
    // and then release or reuse them. Every other statistic only falls and then rises
    // within a call, so its peak is exactly the largest value observed between calls.
    const bool transient = p.starts_with("inactive_split");
    const std::int64_t peak = get(now, p + ".peak");
    c.expect(transient ? peak >= max_observed_[p] : peak == max_observed_[p], "peak rule", p,
             ".peak ", peak,
             transient ? " < " : " != ", "the largest current observed since the last reset ",
             max_observed_[p]);
    if (transient) max_observed_[p] = std::max(max_observed_[p], peak);
  }
  last_ = now;
  return out;
}

Violations StatHistory::after_reset_peak(const FlatStats& now) {
  Violations out;
  Collector c(out);
  for (const auto& [key, value] : now) {
    const bool is_peak = key.ends_with(".peak");
    if (is_peak) {
      const std::string p = key.substr(0, key.size() - 5);
      c.expect(value == get(now, p + ".current"), "invariant 3", key, " ", value,
               " != current right after reset_peak_memory_stats");
    } else {
      c.expect(value == get(last_, key), "reset_peak", key, " changed from ", get(last_, key),
               " to ", value);
    }
  }
  for (const std::string& p : stat_prefixes()) max_observed_[p] = get(now, p + ".current");
  last_ = now;
  return out;
}

Violations StatHistory::after_reset_accumulated(const FlatStats& now) {
  Violations out;
  Collector c(out);
  for (const auto& [key, value] : now) {
    if (key.ends_with(".allocated") || key.ends_with(".freed")) {
      c.expect(value == 0, "reset_accumulated", key, " ", value, " != 0");
    } else if (std::find(kAccumulatedScalars.begin(), kAccumulatedScalars.end(), key) !=
               kAccumulatedScalars.end()) {
      c.expect(value == 0, "reset_accumulated", key, " ", value, " != 0");
    } else {
      c.expect(value == get(last_, key), "invariant 3", key, " changed from ", get(last_, key),
               " to ", value, " across reset_accumulated_memory_stats");
    }
  }
  for (const std::string& p : stat_prefixes()) baseline_[p] = get(now, p + ".current");
  last_ = now;
  return out;
}

}  // namespace accel::detail::alloc::invariants
