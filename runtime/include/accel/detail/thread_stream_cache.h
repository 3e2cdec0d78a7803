#pragma once
// Implementation detail of the public headers (not API): the per-thread table of current
// stream ids, exposed so that StreamGuard can enter and leave inline. The rules are Note
// [Thread-local current streams] (runtime/src/api/current_stream.h); the table is defined
// in stream.cpp. One initial-exec thread_local array of 128 ids, tagged with the published
// thread-device generation (accel/detail/thread_device_cache.h): a table written under an
// older generation reads as "all default streams".
//
// A thread's table is never older than its cached device: the runtime caches a device for
// a thread only under the published generation, and brings the thread's table to that
// generation first (cache_thread_device in runtime/src/api/accelerator.cpp). A table is
// only ever reset to the published generation, and a generation is published for one
// unbroken stretch, never again once replaced. So while the thread's device key is of the
// published generation, its table is too, and StreamGuard's inline paths test the key alone.
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

// ids first: a slot's address is then the table's thread-pointer offset plus 8 * index,
// with no further constant for StreamGuard's inline paths to add.
struct ThreadStreams {
  std::int64_t ids[kMaxCachedIndex + 1];
  std::uint64_t key_base;    // g_thread_device_key_base when the ids were written
  std::uint64_t checked[2];  // bit i: current_stream(i) passed its checks under key_base
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

// The slot of `index` in this thread's table, with the thread's device key, when `index`
// is the thread's current (not pending) device in the published generation (Note
// [Thread-local current device]); the table is then of that generation too (above).
// nullptr otherwise (the caller takes its out-of-line path). StreamGuard's inline entry is
// this and one exchange.
//
// The whole test is one compare: the key `index` would have, generation << 8 | index << 1,
// computed as base + 2 * index over the index as an unsigned 32-bit value. Any index outside
// [0, 127] (a negative one included) carries into the generation bits and gives a key of a
// generation newer than the published one, which no thread holds: a thread caches only the
// published generation, and publish_top_generation (core/runtime.cpp) publishes only a
// generation drawn after every earlier one.
inline std::int64_t* current_device_stream_slot(int index, std::uint64_t* key) noexcept {
  const std::uint64_t unsigned_index = static_cast<std::uint32_t>(index);
  const std::uint64_t expected =
      g_thread_device_key_base.load(std::memory_order_relaxed) + 2 * unsigned_index;
  if (t_thread_device_key != expected) return nullptr;
  *key = expected;
  return &t_thread_streams.ids[unsigned_index];
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
