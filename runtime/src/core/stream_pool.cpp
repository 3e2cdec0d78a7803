// StreamPools: Note [Stream pools] (stream_pool.h).
#include "core/stream_pool.h"

#include <algorithm>
#include <string>

namespace accel::detail {

StreamPools::~StreamPools() {
  for (auto& pool : pools_) delete pool.load();
}

const DevicePool& StreamPools::device_pool(Backend& backend, int index) {
  DevicePool* pool = pools_[index].load(std::memory_order_acquire);
  if (pool != nullptr) [[likely]]
    return *pool;
  std::unique_lock lock(mutex_);
  pool = pools_[index].load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  Backend::PriorityRange driver = check(backend.stream_priority_range(index));
  auto fresh = std::make_unique<DevicePool>();
  // PyTorch: the range it reports is (0, max(-3, greatest)); the number of levels is the
  // size of that range, at most 4.
  fresh->range.least = 0;
  fresh->range.greatest = std::max(-(kMaxPriorityLevels - 1), std::min(driver.greatest, 0));
  fresh->levels = fresh->range.least - fresh->range.greatest + 1;
  for (int level = 0; level < fresh->levels; ++level) {
    for (int slot = 0; slot < kStreamsPerPool; ++slot) {
      // A failure half-way leaks the streams made so far (a driver that fails here is
      // broken anyway); nothing is published, so the next request tries again.
      fresh->handles[level][slot] = check(backend.create_stream(index, -level));
    }
  }
  pool = fresh.release();
  pools_[index].store(pool, std::memory_order_release);
  lock.unlock();
  name_queues(backend, index, *pool);
  return *pool;
}

// Note [Queues named for tools]
// The tool learns each pool queue's runtime name right after the pool is published, outside
// the pool's lock (the tool takes locks of its own): "cuda:0 stream id=<id> (priority <p>)",
// the id and priority accel::Stream reports for it, with the driver's handle of the queue.
void StreamPools::name_queues(Backend& backend, int index, const DevicePool& pool) const {
  const ToolHooks* tool = tool_.load(std::memory_order_acquire);
  if (tool == nullptr || tool->name_queue == nullptr) return;
  const std::string device = std::string(to_string(backend.type())) + ":" + std::to_string(index);
  for (int level = 0; level < pool.levels; ++level) {
    for (int slot = 0; slot < kStreamsPerPool; ++slot) {
      const std::int64_t id = pool_stream_id(level, slot);
      const std::string name = device + " stream id=" + std::to_string(id) + " (priority " +
                               std::to_string(-level) + ")";
      tool->name_queue(device.c_str(), backend.driver_queue(index, pool.handles[level][slot]),
                       name.c_str());
    }
  }
}

std::int64_t StreamPools::next_stream_id(Backend& backend, int index, int level) {
  const DevicePool& pool = device_pool(backend, index);
  level = std::min(level, pool.levels - 1);
  auto& counter = const_cast<DevicePool&>(pool).next[level];
  const unsigned slot = counter.fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool;
  return pool_stream_id(level, static_cast<int>(slot));
}

StreamHandle StreamPools::handle(Backend& backend, int index, std::int64_t id) {
  if (id == 0) return StreamHandle{};
  const int level = pool_stream_level(id);
  const int slot = pool_stream_slot(id);
  const DevicePool& pool = device_pool(backend, index);
  if (level < 0 || level >= pool.levels || slot < 0 || slot >= kStreamsPerPool) {
    ErrorDetail detail;
    detail.device = index;
    throw Error(ErrorKind::kValue,
                "stream: no stream with id " + std::to_string(id) + " exists on device " +
                    std::to_string(index) + " (stream_id=" + std::to_string(id) + ")",
                detail);
  }
  return pool.handles[level][slot];
}

}  // namespace accel::detail
