#pragma once
// The per-thread, per-device current stream, and the checks every stream, event and graph
// call shares.
//
// Note [Thread-local current streams]
// As c10's current_streams, each thread has one current stream id per device, initially
// 0 (the default stream). The table is one initial-exec thread_local array (the runtime is
// linked statically, like the device cache of thread_device.h), tagged with the published
// thread-device generation: when a backend override is installed or removed, or a child
// is forked after initialisation, the generation changes and every thread's table reads as
// "all default" on its next use. So no thread ever sees a stream id of another runtime
// state, and a poisoned child sees none of its parent's (its calls raise ForkError
// anyway). Each table also records the devices whose checks this thread's current_stream()
// passed under its generation, so that current_stream() is a thread-local read after the
// first call (accel/detail/thread_stream_cache.h). Only ids are stored: a Stream is (device, id), and the handle is looked up in
// the device's pool (core/stream_pool.h) when work is queued.

#include <cstdint>
#include <string_view>

#include "accel/detail/thread_device_cache.h"
#include "accel/detail/thread_stream_cache.h"
#include "accel/stream.h"
#include "spi/device_limits.h"
#include "core/runtime.h"

namespace accel::detail {

// The table itself and thread_stream_ids() are in accel/detail/thread_stream_cache.h
// (public only so that StreamGuard can inline its fast path).

// Sets `stream` current on its device for this thread and returns the previous current
// stream of that device. Does not change the current device. Requires a valid index.
inline Stream exchange_thread_stream(const Stream& stream) noexcept {
  std::int64_t* ids = thread_stream_ids();
  const int index = stream.device_index();
  const Stream previous = Stream::unchecked(index, ids[index]);
  ids[index] = stream.id();
  return previous;
}

// Records that this thread's current_stream(index) passed prepare_stream_call() in
// `state`, so that the inline current_stream() answers it from the table (Note
// [Thread-local current streams]). Only for an initialised state whose generation is the
// published one: while init() replays queued calls, or while another state is being
// installed, nothing is recorded and the next call checks again.
inline void remember_stream_checks_passed(RuntimeState& state, int index) noexcept {
  if (!state.lazy().initialized()) return;
  if (g_thread_device_key_base.load(std::memory_order_relaxed) != state.generation() << 8) return;
  thread_stream_ids();  // a table of another generation is reset first
  t_thread_streams.checked[index >> 6] |= std::uint64_t{1} << (index & 63);
}

// The range check, bad-fork check, initialisation and the device check of c10's
// check_gpu: an index past the last device throws kIndex "Device index value <i> is out
// of index range [0, <count>)". Returns the installed state.
RuntimeState& prepare_stream_call(int index);

// The backend of an initialised state (require_backend without the rethrow cost).
inline Backend& initialized_backend(RuntimeState& state) noexcept { return *state.backend(); }

// The result of a backend call that may have switched the thread's context for its
// duration: on failure this thread's cached device is forgotten, then the error thrown.
void check_stream_call(const Status& status);
template <class T>
T check_stream_call(Result<T> result) {
  if (!result.ok()) check_stream_call(result.status());
  return std::move(result).value();
}

// The backend handle of `stream` in `state` (null for a default stream).
StreamHandle stream_handle(RuntimeState& state, const Stream& stream);

}  // namespace accel::detail
