#pragma once
// The memory history (accel::record_memory_history): a ring of the allocator's events
// (alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map,
// segment_unmap, oom) with the host call site and the host time. Data only: the JSON
// writer lives with the snapshot writer. Not thread-safe (the allocator's lock guards it).
// While disabled, record() returns at once and allocates nothing.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "accel/memory.h"

namespace accel::detail::alloc {

class MemoryHistory {
 public:
  // Enabling (re)starts with an empty ring of `max_entries`; disabling keeps the entries.
  void set_enabled(bool enabled, std::size_t max_entries);
  bool enabled() const noexcept { return enabled_; }
  void record(const char* action, std::uint64_t address, std::size_t size, std::int64_t stream,
              const HostFrame* site);
  std::vector<TraceEntry> entries() const;  // oldest first

 private:
  bool enabled_ = false;
  std::size_t max_entries_ = 0;
  std::size_t next_ = 0;  // slot of the next entry once the ring is full
  std::vector<TraceEntry> ring_;
};

}  // namespace accel::detail::alloc
