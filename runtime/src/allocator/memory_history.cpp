#include "allocator/memory_history.h"

#include <chrono>

namespace accel::detail::alloc {

void MemoryHistory::set_enabled(bool enabled, std::size_t max_entries) {
  if (enabled) {
    ring_.clear();
    next_ = 0;
    max_entries_ = max_entries;
  }
  enabled_ = enabled && max_entries > 0;
}

void MemoryHistory::record(const char* action, std::uint64_t address, std::size_t size,
                           std::int64_t stream, const HostFrame* site) {
  if (!enabled_) return;
  TraceEntry entry;
  entry.action = action;
  entry.addr = address;
  entry.size = size;
  entry.stream = stream;
  entry.time_us = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  if (site != nullptr) entry.frames.push_back(*site);
  if (ring_.size() < max_entries_) {
    ring_.push_back(std::move(entry));
  } else {
    ring_[next_] = std::move(entry);
    next_ = (next_ + 1) % max_entries_;
  }
}

std::vector<TraceEntry> MemoryHistory::entries() const {
  std::vector<TraceEntry> out;
  out.reserve(ring_.size());
  for (std::size_t i = 0; i < ring_.size(); ++i) out.push_back(ring_[(next_ + i) % ring_.size()]);
  return out;
}

}  // namespace accel::detail::alloc
