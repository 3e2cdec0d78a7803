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
// device is current, initialised and not in a bad fork (that one compare is the fork
// check: a forked child of an initialised parent has a new generation, so the key never
// matches there), and only the thread's table of current stream ids
// (accel/detail/thread_stream_cache.h, of the key's generation whenever the key is valid)
// changes. Anything else takes the out-of-line path.

#include "accel/detail/thread_device_cache.h"
#include "accel/detail/thread_stream_cache.h"
#include "accel/stream.h"

namespace accel {

class StreamGuard {
 public:
  // Members are plain integers (not Stream values) so that the fast path is a few scalar
  // loads and stores: one key compare, the slot and three fields on entry; one field
  // compare, the generation and the slot on exit.
  explicit StreamGuard(const Stream& stream) {
    std::uint64_t key;
    if (std::int64_t* slot = detail::current_device_stream_slot(stream.device_index(), &key))
        [[likely]] {
      const std::int64_t previous = *slot;
      *slot = stream.id();
      saved_id_ = previous;
      state_ = key;  // base | index << 1: the key the slot test matched
      current_id_ = stream.id();
      return;
    }
    enter(stream);
  }
  // The stream of the device the guard moved to first, then the device. Inline when the
  // guard was entered inline and never moved, and the thread is still on that device (or
  // pending on it) in the same generation, the published one: then the stream table is of
  // that generation too (accel/detail/thread_stream_cache.h), and the device needs no
  // restore.
  ~StreamGuard() {
    const std::uint64_t key = detail::t_thread_device_key & ~std::uint64_t{1};
    if (key == state_ &&
        (key & ~std::uint64_t{0xff}) ==
            detail::g_thread_device_key_base.load(std::memory_order_relaxed)) [[likely]] {
      // ids[index] addressed as ids + (key & 0xfe) * 4 bytes: one mask, and the scale of 4
      // folded into the store's address (index >> 1 & 127, then * 8, costs a shift more).
      *reinterpret_cast<std::int64_t*>(reinterpret_cast<char*>(detail::t_thread_streams.ids) +
                                       (key & 0xfe) * 4) = saved_id_;
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
    return Stream::unchecked(original_device(),
                             moved() ? original_id_of_original_device_ : saved_id_);
  }
  // The stream the guard made current (the last reset_stream()'s).
  Stream current_stream() const noexcept {
    return Stream::unchecked(current_device(), current_id_);
  }
  int original_device() const noexcept {
    return moved() ? static_cast<int>(state_ >> 32) : inline_device();
  }
  int current_device() const noexcept {
    return moved() ? static_cast<int>((state_ >> 1) & 0x7fffffff) : inline_device();
  }

 private:
  // state_ is one of two encodings, told apart by its low bit:
  //   even: entered inline and never moved: the thread's device key at entry,
  //         generation << 8 | index << 1. Original and current device are that index, and
  //         saved_id_ is also the original device's stream at entry. The destructor's whole
  //         test is this word against the thread's key (whose pending bit it clears, so an
  //         odd state_ never matches).
  //   odd:  entered out of line, or moved by reset_stream: original << 32 | current << 1 | 1
  //         (device indices are below 2^31), and original_id_of_original_device_ is set.
  static std::uint64_t moved_state(int original, int current) noexcept {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(original)) << 32 |
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(current)) << 1 | 1;
  }
  bool moved() const noexcept { return (state_ & 1) != 0; }
  int inline_device() const noexcept {
    return static_cast<int>((state_ >> 1) & detail::kMaxCachedIndex);
  }
  void enter(const Stream& stream);  // out of line: checks, a device switch
  void leave() noexcept;  // out of line: restores the stream, maybe_exchange_device; never throws

  // The layout keeps the two fields the destructor reads apart from the others, so that the
  // compiler does not merge the constructor's stores into one vector store that the
  // destructor would read back in part (a load the CPU forwards slowly or not at all).
  std::int64_t saved_id_;                        // the current device's stream before the guard
  std::int64_t original_id_of_original_device_;  // odd state_ only (see above)
  std::uint64_t state_;
  std::int64_t current_id_;                      // the stream the guard made current
};

}  // namespace accel
