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

#include "accel/stream.h"

namespace accel {

class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();

  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  StreamGuard(StreamGuard&&) = delete;
  StreamGuard& operator=(StreamGuard&&) = delete;

  void reset_stream(const Stream& stream);

  // The current stream of the original device when the guard was entered.
  Stream original_stream() const noexcept { return original_stream_of_original_device_; }
  // The stream the guard made current (the last reset_stream()'s).
  Stream current_stream() const noexcept { return current_stream_; }
  int original_device() const noexcept { return original_device_; }
  int current_device() const noexcept { return current_stream_.device_index(); }

 private:
  int original_device_;
  Stream original_stream_of_original_device_;
  Stream original_stream_of_current_device_;
  Stream current_stream_;
};

}  // namespace accel
