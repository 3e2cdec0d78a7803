#pragma once
// The device allocator's statistics, with PyTorch's exact update rules (spec
// torch.cuda.memory_stats's update rules and resets) and names. Values only, not thread-safe (the
// owning allocator's lock guards them).

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace accel::detail::alloc {

struct Stat {
  std::int64_t current = 0;
  std::int64_t peak = 0;
  std::int64_t allocated = 0;
  std::int64_t freed = 0;

  void increase(std::int64_t amount) noexcept;  // current, allocated += amount; peak follows
  void decrease(std::int64_t amount) noexcept;  // current -= amount; freed += amount
  void reset_peak() noexcept { peak = current; }
  void reset_accumulated() noexcept { allocated = freed = 0; }
};

enum class StatType : std::size_t { kAll = 0, kSmallPool = 1, kLargePool = 2 };
inline constexpr std::size_t kStatTypeCount = 3;

// all, small_pool, large_pool: an update to one pool updates `all` too.
struct StatArray {
  std::array<Stat, kStatTypeCount> pools{};
  // Updates `all` and the pool `small` selects.
  void increase(bool small, std::int64_t amount) noexcept;
  void decrease(bool small, std::int64_t amount) noexcept;
  const Stat& all() const noexcept { return pools[0]; }
};

struct DeviceStats {
  StatArray allocation, segment, active, inactive_split;
  StatArray allocated_bytes, reserved_bytes, active_bytes, inactive_split_bytes,
      requested_bytes;
  Stat oversize_allocations, oversize_segments;
  std::int64_t num_alloc_retries = 0;
  std::int64_t num_ooms = 0;
  std::int64_t num_sync_all_streams = 0;
  std::int64_t num_device_alloc = 0;
  std::int64_t num_device_free = 0;
  std::int64_t max_split_size = -1;  // the configured limit; -1 = unlimited

  void reset_peak() noexcept;         // reset_peak_memory_stats
  void reset_accumulated() noexcept;  // reset_accumulated_memory_stats
};

// The 122 flat keys of torch.cuda.memory_stats, sorted ("active.all.allocated", ...,
// "segment.small_pool.peak").
std::map<std::string, std::int64_t> flatten(const DeviceStats& stats);

}  // namespace accel::detail::alloc
