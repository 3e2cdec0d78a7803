#pragma once
// StreamGuard: c10's InlineStreamGuard / CUDAStreamGuard as an RAII scope.
//
// Entering makes the stream's device current (as DeviceIndexGuard) and the stream that
// device's current stream on this thread. Leaving restores, in this order, the current
// stream of the device the guard moved to, then the current device. The current stream of
// the device that was current before is never changed, so a guard on one device never
// disturbs another device's current stream. Guards nest; leaving by an exception restores
// too. Bound to the creating thread: not copyable, not movable.
//
// reset_stream(other) on the same device only exchanges the stream; on another device it
// first restores the current stream of the device it leaves, then moves (the original
// device is kept for the final restore). Only one device's stream is restored at exit.
//
// Errors: the constructor throws what set_device_index / current_stream throw (ForkError
// in a poisoned child); on a throw nothing was changed. The destructor never throws: a
// failure to restore the device is reported on stderr (as DeviceIndexGuard does).
//
// Cost: a guard on a stream of the thread's current device (the common case) is entered
// and left inline: the thread's cached device (accel/detail/thread_device_cache.h) says the
// device is current, initialised and not in a bad fork, and only the thread's table of
// current stream ids (accel/detail/thread_stream_cache.h) changes. Anything else takes the
// out-of-line path.

#include "accel/detail/thread_device_cache.h"
#include "accel/detail/thread_stream_cache.h"
#include "accel/stream.h"

namespace accel {

class StreamGuard {
 public:
  // Members are plain integers (not Stream values) so that the fast path is a few scalar
  // loads and stores.
  explicit StreamGuard(const Stream& stream) {
    const int index = stream.device_index();
    if (detail::thread_device_is_current(index)) [[likely]] {
      std::int64_t& id = detail::thread_stream_ids()[index];
      original_device_ = index;
      current_device_ = index;
      original_id_of_original_device_ = id;
      saved_id_ = id;
      current_id_ = stream.id();
      id = current_id_;
      return;
    }
    enter(stream);
  }
  // The stream of the device the guard moved to first, then the device.
  ~StreamGuard() {
    detail::thread_stream_ids()[current_device_] = saved_id_;
    if (detail::thread_device_is(original_device_)) [[likely]]
      return;
    leave();
  }

  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  StreamGuard(StreamGuard&&) = delete;
  StreamGuard& operator=(StreamGuard&&) = delete;

  void reset_stream(const Stream& stream);

  // The current stream of the original device when the guard was entered.
  Stream original_stream() const noexcept {
    return Stream::unchecked(original_device_, original_id_of_original_device_);
  }
  // The stream the guard made current (the last reset_stream()'s).
  Stream current_stream() const noexcept { return Stream::unchecked(current_device_, current_id_); }
  int original_device() const noexcept { return original_device_; }
  int current_device() const noexcept { return current_device_; }

 private:
  void enter(const Stream& stream);  // out of line: checks, a device switch
  void leave() noexcept;             // out of line: maybe_exchange_device, never throws

  int original_device_;
  int current_device_;
  std::int64_t original_id_of_original_device_;  // the original device's stream at entry
  std::int64_t saved_id_;    // the current device's stream before the guard changed it
  std::int64_t current_id_;  // the stream the guard made current
};

}  // namespace accel
