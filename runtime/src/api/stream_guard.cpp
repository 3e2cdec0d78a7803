// StreamGuard (accel/stream_guard.h): c10's InlineStreamGuard over the per-thread current
// device (accelerator.cpp) and current streams (current_stream.h).
#include "accel/stream_guard.h"

#include <cstdio>
#include <exception>

#include "accel/accelerator.h"
#include "api/current_stream.h"
#include "spi/thread_device.h"

namespace accel {

namespace {

// The current stream of `index` on this thread (its device is valid and initialised).
Stream thread_current_stream(int index) noexcept {
  return Stream::unchecked(index, detail::thread_stream_ids()[index]);
}

}  // namespace

// The out-of-line entry (the inline one in the header covers a stream of the thread's
// current device). Order matters for "on a throw nothing was changed": every check (range,
// fork, initialisation, ordinal) happens in prepare_stream_call before the device moves,
// and exchange_device is the only step that can fail after it; the stream exchange cannot.
void StreamGuard::enter(const Stream& stream) {
  const int index = stream.device_index();
  detail::prepare_stream_call(index);
  const int original = exchange_device(index);
  state_ = moved_state(original, index);
  original_id_of_original_device_ = thread_current_stream(original).id();
  saved_id_ = detail::exchange_thread_stream(stream).id();
  current_id_ = stream.id();
}

// The general exit: the stream of the device the guard is on (into a table of the current
// generation), then the device, unless the thread is on it already.
void StreamGuard::leave() noexcept {
  detail::thread_stream_ids()[current_device()] = saved_id_;
  const int original = original_device();
  if (detail::thread_device_is(original)) return;
  try {
    maybe_exchange_device(original);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: StreamGuard: failed to restore device %d: %s\n", original,
                 e.what());
    detail::remember_thread_device_after_failed_restore(original);
  } catch (...) {
    std::fprintf(stderr, "accel: StreamGuard: failed to restore device %d\n", original);
    detail::remember_thread_device_after_failed_restore(original);
  }
}

void StreamGuard::reset_stream(const Stream& stream) {
  const int index = stream.device_index();
  const int current = current_device();
  if (index == current) {
    detail::exchange_thread_stream(stream);
    current_id_ = stream.id();
    return;
  }
  detail::prepare_stream_call(index);
  // Leave the device we are on as we found it, then move; the original device is kept.
  detail::thread_stream_ids()[current] = saved_id_;
  try {
    exchange_device(index);
  } catch (...) {
    // Nothing moved: put our stream back so the guard's state is unchanged.
    detail::thread_stream_ids()[current] = current_id_;
    throw;
  }
  if (!moved()) original_id_of_original_device_ = saved_id_;
  const int original = original_device();
  saved_id_ = detail::exchange_thread_stream(stream).id();
  state_ = moved_state(original, index);
  current_id_ = stream.id();
}

}  // namespace accel
