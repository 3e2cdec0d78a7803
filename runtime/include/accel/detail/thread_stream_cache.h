#pragma once
// Implementation detail of the public headers (not API): the per-thread table of current
// stream ids, exposed so that StreamGuard can enter and leave inline. The rules are Note
// [Thread-local current streams] (runtime/src/api/current_stream.h); the table is defined
// in stream.cpp. One initial-exec thread_local array of 128 ids, tagged with the published
// thread-device generation (accel/detail/thread_device_cache.h): a table written under an
// older generation reads as "all default streams".
//
// The table also remembers, per device, that this thread's current_stream(index) passed
// every check of the out-of-line call (range, bad fork, initialisation, ordinal) under the
// generation it is tagged with. Nothing those checks depend on changes within one
// generation (the device count is fixed once initialised, and a forked child of an
// initialised parent gets a new generation), so current_stream() answers such a device from
// the table inline, one thread-local compare and a bit test. A table of another generation
// has no bit set.

#include <atomic>
#include <cstdint>

#include "accel/detail/thread_device_cache.h"

namespace accel::detail {

struct ThreadStreams {
  std::uint64_t key_base;  // g_thread_device_key_base when the ids were written
  std::uint64_t checked[2];  // bit i: current_stream(i) passed its checks under key_base
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
    table.checked[0] = 0;
    table.checked[1] = 0;
    table.key_base = base;
  }
  return table.ids;
}

// The slot of `index` in this thread's table when `index` is the thread's current (not
// pending) device in the published generation (Note [Thread-local current device]) and
// the table is of the same generation; nullptr otherwise (the caller takes its out-of-line
// path, which resets a stale table). StreamGuard's inline entry is this and one store.
inline std::int64_t* current_device_stream_slot(int index) noexcept {
  if (static_cast<unsigned>(index) > kMaxCachedIndex) return nullptr;
  const std::uint64_t base = g_thread_device_key_base.load(std::memory_order_relaxed);
  ThreadStreams& table = t_thread_streams;
  if (t_thread_device_key != (base | static_cast<std::uint64_t>(index) << 1) ||
      table.key_base != base) {
    return nullptr;
  }
  return &table.ids[index];
}

// current_stream()'s inline path: true, with this thread's current stream id of `index`,
// when the table is of the published generation and current_stream(index) passed its checks
// under it. False for any index outside [0, 127].
inline bool checked_thread_stream_id(int index, std::int64_t* id) noexcept {
  if (static_cast<unsigned>(index) > kMaxCachedIndex) return false;
  const ThreadStreams& table = t_thread_streams;
  if (table.key_base != g_thread_device_key_base.load(std::memory_order_relaxed)) return false;
  if (((table.checked[index >> 6] >> (index & 63)) & 1) == 0) return false;
  *id = table.ids[index];
  return true;
}

}  // namespace accel::detail
