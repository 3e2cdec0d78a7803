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
    if (std::int64_t* slot = detail::current_device_stream_slot(index, false)) [[likely]] {
      const std::int64_t previous = *slot;
      *slot = stream.id();
      saved_id_ = previous;
      devices_ = pack_devices(index, index);
      current_id_ = stream.id();
      original_id_of_original_device_ = previous;
      return;
    }
    enter(stream);
  }
  // The stream of the device the guard moved to first, then the device.
  ~StreamGuard() {
    if (std::int64_t* slot = detail::current_device_stream_slot(original_device(), true);
        slot != nullptr && devices_ == pack_devices(original_device(), original_device()))
        [[likely]] {
      *slot = saved_id_;
      return;
    }
    leave();
  }

  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  StreamGuard(StreamGuard&&) = delete;
  StreamGuard& operator=(StreamGuard&&) = delete;

  void reset_stream(const Stream& stream);

  // The current stream of the original device when the guard was entered.
  Stream original_stream() const noexcept {
    return Stream::unchecked(original_device(), original_id_of_original_device_);
  }
  // The stream the guard made current (the last reset_stream()'s).
  Stream current_stream() const noexcept {
    return Stream::unchecked(current_device(), current_id_);
  }
  int original_device() const noexcept { return static_cast<int>(devices_ & 0xffffffff); }
  int current_device() const noexcept { return static_cast<int>(devices_ >> 32); }

 private:
  // Both devices in one word, so that the destructor's test is one load of a field the
  // constructor wrote with one store (separate narrow fields were written by one merged
  // vector store and read back in halves, which the CPU cannot forward from the store).
  static std::uint64_t pack_devices(int original, int current) noexcept {
    return static_cast<std::uint32_t>(original) |
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(current)) << 32;
  }
  void enter(const Stream& stream);  // out of line: checks, a device switch
  void leave() noexcept;  // out of line: restores the stream, maybe_exchange_device; never throws

  // Written in the order the inline constructor writes them; saved_id_ first, alone, as
  // the destructor reads it.
  std::int64_t saved_id_;        // the current device's stream before the guard changed it
  std::uint64_t devices_;        // pack_devices(original, current)
  std::int64_t current_id_;      // the stream the guard made current
  std::int64_t original_id_of_original_device_;  // the original device's stream at entry
};

}  // namespace accel
