#include "allocator/device_stats.h"

#include <algorithm>

namespace accel::detail::alloc {

void Stat::increase(std::int64_t amount) noexcept {
  current += amount;
  allocated += amount;
  peak = std::max(peak, current);
}

void Stat::decrease(std::int64_t amount) noexcept {
  current -= amount;
  freed += amount;
}

void StatArray::increase(bool small, std::int64_t amount) noexcept {
  pools[0].increase(amount);
  pools[small ? 1 : 2].increase(amount);
}

void StatArray::decrease(bool small, std::int64_t amount) noexcept {
  pools[0].decrease(amount);
  pools[small ? 1 : 2].decrease(amount);
}

namespace {
template <class F>
void for_each_stat(DeviceStats& s, F f) {
  for (StatArray* a : {&s.allocation, &s.segment, &s.active, &s.inactive_split,
                       &s.allocated_bytes, &s.reserved_bytes, &s.active_bytes,
                       &s.inactive_split_bytes, &s.requested_bytes}) {
    for (Stat& stat : a->pools) f(stat);
  }
  f(s.oversize_allocations);
  f(s.oversize_segments);
}
}  // namespace

void DeviceStats::reset_peak() noexcept {
  for_each_stat(*this, [](Stat& s) { s.reset_peak(); });
}

void DeviceStats::reset_accumulated() noexcept {
  for_each_stat(*this, [](Stat& s) { s.reset_accumulated(); });
  num_alloc_retries = num_ooms = num_sync_all_streams = num_device_alloc = num_device_free = 0;
}

std::map<std::string, std::int64_t> flatten(const DeviceStats& stats) {
  std::map<std::string, std::int64_t> out;
  auto add_stat = [&out](const std::string& prefix, const Stat& s) {
    out[prefix + ".current"] = s.current;
    out[prefix + ".peak"] = s.peak;
    out[prefix + ".allocated"] = s.allocated;
    out[prefix + ".freed"] = s.freed;
  };
  const std::pair<const char*, const StatArray*> arrays[] = {
      {"allocation", &stats.allocation},
      {"segment", &stats.segment},
      {"active", &stats.active},
      {"inactive_split", &stats.inactive_split},
      {"allocated_bytes", &stats.allocated_bytes},
      {"reserved_bytes", &stats.reserved_bytes},
      {"active_bytes", &stats.active_bytes},
      {"inactive_split_bytes", &stats.inactive_split_bytes},
      {"requested_bytes", &stats.requested_bytes}};
  const char* pool_names[kStatTypeCount] = {"all", "small_pool", "large_pool"};
  for (const auto& [name, array] : arrays) {
    for (std::size_t p = 0; p < kStatTypeCount; ++p) {
      add_stat(std::string(name) + "." + pool_names[p], array->pools[p]);
    }
  }
  add_stat("oversize_allocations", stats.oversize_allocations);
  add_stat("oversize_segments", stats.oversize_segments);
  out["num_alloc_retries"] = stats.num_alloc_retries;
  out["num_ooms"] = stats.num_ooms;
  out["max_split_size"] = stats.max_split_size;
  out["num_sync_all_streams"] = stats.num_sync_all_streams;
  out["num_device_alloc"] = stats.num_device_alloc;
  out["num_device_free"] = stats.num_device_free;
  return out;
}

}  // namespace accel::detail::alloc
