#pragma once
// Implementation detail of the public headers (not API): the per-thread table of current
// stream ids, exposed so that StreamGuard can enter and leave inline. The rules are Note
// [Thread-local current streams] (runtime/src/core/current_stream.h); the table is defined
// in stream.cpp. One initial-exec thread_local array of 128 ids, tagged with the published
// thread-device generation (accel/detail/thread_device_cache.h): a table written under an
// older generation reads as "all default streams".

#include <atomic>
#include <cstdint>

#include "accel/detail/thread_device_cache.h"

namespace accel::detail {

struct ThreadStreams {
  std::uint64_t key_base;  // g_thread_device_key_base when the ids were written
  std::int64_t ids[kMaxCachedIndex + 1];
};
extern constinit thread_local ThreadStreams t_thread_streams ACCEL_TLS_INITIAL_EXEC;

// This thread's current stream ids, reset to the default streams when they belong to an
// older generation.
inline std::int64_t* thread_stream_ids() noexcept {
  ThreadStreams& table = t_thread_streams;
  const std::uint64_t base = g_thread_device_key_base.load(std::memory_order_relaxed);
  if (table.key_base != base) [[unlikely]] {
    for (std::int64_t& id : table.ids) id = 0;
    table.key_base = base;
  }
  return table.ids;
}

}  // namespace accel::detail
