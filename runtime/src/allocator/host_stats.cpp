#include "allocator/host_stats.h"

#include <algorithm>

namespace accel::detail::alloc {

void DurationStat::add(std::int64_t microseconds) noexcept {
  total += microseconds;
  ++count;
  if (!extrema_seen_) {
    min = max = microseconds;
    extrema_seen_ = true;
    return;
  }
  min = std::min(min, microseconds);
  max = std::max(max, microseconds);
}

void DurationStat::reset_peak() noexcept {
  min = max = 0;
  extrema_seen_ = false;
}

void HostStats::reset_peak() noexcept {
  for (HostStat* stat : {&allocations, &allocated_bytes, &active_requests, &active_bytes}) {
    stat->reset_peak();
  }
  host_alloc_time.reset_peak();
  host_free_time.reset_peak();
}

void HostStats::reset_accumulated() noexcept {
  for (HostStat* stat : {&allocations, &allocated_bytes, &active_requests, &active_bytes}) {
    stat->reset_accumulated();
  }
  num_host_alloc = num_host_free = 0;
  host_alloc_time.reset_accumulated();
  host_free_time.reset_accumulated();
}

namespace {

void put(std::map<std::string, std::int64_t>& out, const std::string& name, const HostStat& s) {
  out[name + ".current"] = s.current;
  out[name + ".peak"] = s.peak;
  out[name + ".allocated"] = s.allocated;
  out[name + ".freed"] = s.freed;
}

void put(std::map<std::string, std::int64_t>& out, const std::string& name,
         const DurationStat& s) {
  out[name + ".total"] = s.total;
  out[name + ".max"] = s.max;
  out[name + ".min"] = s.min;
  out[name + ".count"] = s.count;
  out[name + ".avg"] = s.avg();
}

}  // namespace

std::map<std::string, std::int64_t> flatten(const HostStats& stats) {
  std::map<std::string, std::int64_t> out;
  put(out, "allocations", stats.allocations);
  put(out, "allocated_bytes", stats.allocated_bytes);
  put(out, "active_requests", stats.active_requests);
  put(out, "active_bytes", stats.active_bytes);
  out["num_host_alloc"] = stats.num_host_alloc;
  out["num_host_free"] = stats.num_host_free;
  put(out, "host_alloc_time", stats.host_alloc_time);
  put(out, "host_free_time", stats.host_free_time);
  return out;
}

}  // namespace accel::detail::alloc
