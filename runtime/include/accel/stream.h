#pragma once
// Streams: torch.Stream / torch.cuda.Stream and torch.accelerator's current_stream,
// set_stream and synchronize (torch.accelerator's stream functions; PyTorch's
// c10/cuda/CUDAStream.h).
//
// A Stream is a value: a device index and a stream id, as c10::Stream. Id 0 is the
// device's default stream (CUDA: the legacy NULL stream). Other streams come from the
// device's stream pools, as PyTorch's do (docs/decisions/072-pytorch-stream-pools.md, Note
// [Stream pools] in core/stream_pool.h): per device, one pool of 32 streams per priority
// level (at most 4 levels: priorities 0, -1, -2, -3, clamped to what the driver offers),
// created together on the device's first request, handed out round robin, never
// destroyed. The 33rd stream of a level is the 1st again. Pool streams never synchronise
// implicitly with the default stream (CUDA: CU_STREAM_NON_BLOCKING).
//
// Current streams are per thread and per device; every thread starts on the default
// stream of every device. Initialisation: everything here initialises the runtime except
// synchronize(<explicit index>) before initialisation (a no-op) and the accessors of a
// Stream value. Errors: accel::Error; in a child forked after initialisation, ForkError,
// for every call here that is not a plain accessor.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "accel/detail/thread_device_cache.h"
#include "accel/detail/thread_stream_cache.h"
#include "accel/device.h"

namespace accel {

class Event;

class Stream {
 public:
  // A stream from `device`'s pool (the current device when none) at `priority`: 0 is the
  // default priority, lower numbers run first. Priorities below the lowest level clamp to
  // it; a positive priority throws kValue "Expected cuda stream priority to be less than
  // or equal to 0, got <p>". Initialises; creates the device's pools on first use.
  explicit Stream(DeviceArg device = {}, int priority = 0);

  // The default stream of `device` (the current device when none). Initialises.
  static Stream default_stream(DeviceArg device = {});

  // The accelerator's device with this stream's index ("cuda:1").
  Device device() const;
  int device_index() const noexcept { return device_index_; }
  // 0 for the default stream; pool streams: (index << 5) | (level + 1) << 1 | 1.
  std::int64_t id() const noexcept { return id_; }
  // The priority the stream was created with (0 for the default stream).
  int priority() const noexcept;
  bool is_default() const noexcept { return id_ == 0; }
  // The backend's own handle, for code that queues work on the stream through the driver
  // (CUDA: the CUstream as an integer; 0 for the default stream, the legacy NULL stream).
  // PyTorch's Stream.cuda_stream / getStreamNativeHandle. Initialises.
  std::uintptr_t native_handle() const;

  // True when all work queued so far has completed. Never blocks.
  bool query() const;
  // Blocks until all work queued so far has completed.
  void synchronize() const;
  // Later work on this stream waits for `event`'s recorded work (a no-op for an event
  // never recorded). The event may belong to another device. Never blocks the host.
  void wait_event(const Event& event) const;
  // Later work on this stream waits for the work queued on `other` so far (through a
  // fresh event recorded on `other`; later work on `other` is not waited for).
  void wait_stream(const Stream& other) const;
  // Records a new event (timing disabled) on this stream and returns it.
  Event record_event() const;
  // Records `event` on this stream; returns it.
  Event& record_event(Event& event) const;

  friend bool operator==(const Stream& a, const Stream& b) noexcept {
    return a.device_index_ == b.device_index_ && a.id_ == b.id_;
  }

  // For the runtime: a value from its parts, unchecked.
  static Stream unchecked(int device_index, std::int64_t id) noexcept {
    return Stream(UncheckedTag{}, device_index, id);
  }

 private:
  struct UncheckedTag {};
  Stream(UncheckedTag, int device_index, std::int64_t id) noexcept
      : device_index_(device_index), id_(id) {}

  int device_index_;
  std::int64_t id_;
};

// PyTorch's priority range for `device` (the current device when none): {least, greatest}
// = {0, max(-3, the driver's greatest)}; {0, 0} when the device has no priorities.
// Initialises.
std::pair<int, int> priority_range(DeviceArg device = {});

// The calling thread's current stream of `device` (the current device when none): the
// default stream until set_stream() chose another. Does not change the current device.
// Initialises. An index past the last device throws kIndex "Device index value <i> is out
// of index range [0, <count>)".
Stream current_stream(DeviceArg device);

// The same for the current device, and for an index: inline once this thread's call for
// that device has passed its checks in this runtime generation (Note [Thread-local current
// streams]). The index overload takes exactly `int` (a bool or a double still reaches
// DeviceArg, which rejects it at compile time).
inline Stream current_stream() {
  int index;
  std::int64_t id;
  if (detail::cached_thread_device_index(&index) && detail::checked_thread_stream_id(index, &id))
      [[likely]]
    return Stream::unchecked(index, id);
  return current_stream(DeviceArg{});
}
template <std::same_as<int> Index>
inline Stream current_stream(Index device_index) {
  std::int64_t id;
  if (detail::checked_thread_stream_id(device_index, &id)) [[likely]]
    return Stream::unchecked(device_index, id);
  return current_stream(DeviceArg(device_index));
}

// Makes `stream` its device's current stream on this thread, switching the current device
// to the stream's device first (torch.accelerator.set_stream). Initialises.
void set_stream(const Stream& stream);

// Blocks until every stream of `device` (the current device when none) has finished its
// work. With an explicit index before initialisation, does nothing and initialises
// nothing (PyTorch); with no index it resolves the current device, which initialises.
// Does not change the current device.
void synchronize(DeviceArg device = {});

}  // namespace accel

template <>
struct std::hash<accel::Stream> {
  std::size_t operator()(const accel::Stream& stream) const noexcept {
    const std::uint64_t mixed = static_cast<std::uint64_t>(stream.id()) * 0x9E3779B97F4A7C15ull ^
                                static_cast<std::uint64_t>(stream.device_index());
    return static_cast<std::size_t>(mixed ^ (mixed >> 29));
  }
};
