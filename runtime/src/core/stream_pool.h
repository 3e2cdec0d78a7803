#pragma once
// StreamPools: each device's pool streams and the ids that name them.
//
// Note [Stream pools]
// PyTorch does not create a driver stream per torch.Stream: each device has, per priority
// level, a pool of 32 streams made together on the first request for that device, handed
// out round robin (an atomic counter per level and device) and never destroyed
// (c10/cuda/CUDAStream.cpp). We reproduce that instead of creating a fresh driver stream per
// Stream, because (1) a Stream can then be a plain value, with no ownership to track and
// nothing to destroy while work may still be queued, (2) stream ids, equality and the
// "33rd stream is the 1st again" behaviour match PyTorch, which code that keys caches by
// stream relies on, and (3) the number of driver streams is bounded (128 per device).
// Levels: min(driver range size, 4); level p is created with priority -p; a request for
// priority q <= 0 takes level min(-q, levels - 1). Ids: 0 = the default stream; pool
// stream = (index << 5) | (level + 1) << 1 | 1 (PyTorch's layout).
// One StreamPools per RuntimeState (a backend override gets fresh pools); its driver
// streams are not destroyed with it (PyTorch leaks them too).
// Thread safety: creation under a mutex, lookups lock-free once published. Fork: only used
// after initialisation, and every caller checks for a bad fork first, so a child never
// waits on the creation mutex.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/tool_library.h"
#include "spi/backend.h"
#include "spi/device_limits.h"
#include "spi/status.h"

namespace accel::detail {

inline constexpr int kStreamsPerPool = 32;
inline constexpr int kMaxPriorityLevels = 4;

struct DevicePool {
  int levels = 1;
  Backend::PriorityRange range;  // PyTorch's: {0, max(-3, driver greatest)}
  std::array<std::array<StreamHandle, kStreamsPerPool>, kMaxPriorityLevels> handles{};
  std::array<std::atomic<unsigned>, kMaxPriorityLevels> next{};
};

// Id of the `slot`-th stream of `level` (0-based).
constexpr std::int64_t pool_stream_id(int level, int slot) noexcept {
  return static_cast<std::int64_t>(slot) << 5 | static_cast<std::int64_t>(level + 1) << 1 | 1;
}
// The level of a pool stream id (-1 for the default stream or an id no pool makes).
constexpr int pool_stream_level(std::int64_t id) noexcept {
  if ((id & 1) == 0) return -1;
  const int level = static_cast<int>((id >> 1) & 0xF) - 1;
  return level >= 0 && level < kMaxPriorityLevels ? level : -1;
}
constexpr int pool_stream_slot(std::int64_t id) noexcept { return static_cast<int>(id >> 5); }

class StreamPools {
 public:
  StreamPools() = default;
  StreamPools(const StreamPools&) = delete;
  StreamPools& operator=(const StreamPools&) = delete;
  ~StreamPools();

  // Device `index`'s pools, created on first use (all levels at once). Requires an
  // initialised runtime and a valid index. Throws accel::Error for a backend failure;
  // nothing is published then, so the next call tries again.
  const DevicePool& device_pool(Backend& backend, int index);

  // The next stream id of `level` on `index` (round robin).
  std::int64_t next_stream_id(Backend& backend, int index, int level);

  // The handle that `id` names on `index`: null for the default stream. Throws kValue for
  // an id no pool of this runtime made.
  StreamHandle handle(Backend& backend, int index, std::int64_t id);

  // The tool told about each queue a pool creates (core/tool_library.h); set at the
  // runtime's initialisation, before any pool exists. Null: none.
  void set_tool(const ToolHooks* tool) noexcept { tool_.store(tool, std::memory_order_release); }

 private:
  void name_queues(Backend& backend, int index, const DevicePool& pool) const;

  std::atomic<const ToolHooks*> tool_{nullptr};
  std::mutex mutex_;
  std::array<std::atomic<DevicePool*>, kMaxDeviceIndex + 1> pools_{};
};

}  // namespace accel::detail
