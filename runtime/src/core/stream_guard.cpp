// StreamGuard (accel/stream_guard.h): c10's InlineStreamGuard over the per-thread current
// device (accelerator.cpp) and current streams (current_stream.h).
#include "accel/stream_guard.h"

#include <cstdio>
#include <exception>

#include "accel/accelerator.h"
#include "core/current_stream.h"
#include "core/thread_device.h"

namespace accel {

namespace {

// The current stream of `index` on this thread (its device is valid and initialised).
Stream thread_current_stream(int index) noexcept {
  return Stream::unchecked(index, detail::thread_stream_ids()[index]);
}

}  // namespace

// Order matters for "on a throw nothing was changed": every check (range, fork,
// initialisation, ordinal) happens in prepare_stream_call before the device moves, and
// exchange_device is the only step that can fail after it; the stream exchange cannot.
StreamGuard::StreamGuard(const Stream& stream)
    : original_device_(0),
      original_stream_of_original_device_(stream),
      original_stream_of_current_device_(stream),
      current_stream_(stream) {
  const int index = stream.device_index();
  // The fast path: this thread's cached device is known current and valid, which implies
  // an initialised runtime and no bad fork (Note [Thread-local current device]).
  if (!detail::thread_device_is_current(index)) detail::prepare_stream_call(index);
  original_device_ = exchange_device(index);
  original_stream_of_original_device_ = thread_current_stream(original_device_);
  original_stream_of_current_device_ = detail::exchange_thread_stream(stream);
}

StreamGuard::~StreamGuard() {
  detail::exchange_thread_stream(original_stream_of_current_device_);
  if (detail::thread_device_is(original_device_)) return;
  try {
    maybe_exchange_device(original_device_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: StreamGuard: failed to restore device %d: %s\n", original_device_,
                 e.what());
    detail::remember_thread_device_after_failed_restore(original_device_);
  } catch (...) {
    std::fprintf(stderr, "accel: StreamGuard: failed to restore device %d\n", original_device_);
    detail::remember_thread_device_after_failed_restore(original_device_);
  }
}

void StreamGuard::reset_stream(const Stream& stream) {
  const int index = stream.device_index();
  if (index == current_stream_.device_index()) {
    detail::exchange_thread_stream(stream);
    current_stream_ = stream;
    return;
  }
  detail::prepare_stream_call(index);
  // Leave the device we are on as we found it, then move; the original device is kept.
  detail::exchange_thread_stream(original_stream_of_current_device_);
  try {
    exchange_device(index);
  } catch (...) {
    // Nothing moved: put our stream back so the guard's state is unchanged.
    detail::exchange_thread_stream(current_stream_);
    throw;
  }
  original_stream_of_current_device_ = detail::exchange_thread_stream(stream);
  current_stream_ = stream;
}

}  // namespace accel
