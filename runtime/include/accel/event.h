#pragma once
// Events: torch.Event / torch.cuda.Event (PyTorch's aten/src/ATen/cuda/CUDAEvent.h).
//
// An Event is created lazily, on the device of the stream it is first recorded on (as
// PyTorch's CUDAEvent): constructing one touches nothing. Before its first record an event
// stands for no work: query() is true, synchronize() and wait() do nothing. Recording again
// replaces what the event stands for; a wait already issued keeps what it saw.
//
// Ownership: an Event owns its driver event and destroys it with itself (errors are
// swallowed, as PyTorch does; in a forked child it is left alone). Move-only. Not
// thread-safe: one Event must not be used from two threads at once.
// Errors: accel::Error; in a child forked after initialisation, ForkError from every
// member function except the accessors.

#include <cstdint>
#include <optional>

#include "accel/stream.h"

namespace accel {

struct EventOptions {
  bool enable_timing = false;  // elapsed_time() needs it on both events
  bool blocking = false;       // synchronize() yields instead of spinning
  bool interprocess = false;   // shareable between processes (the driver requires
                               // enable_timing=false with it)
};

class Event {
 public:
  explicit Event(EventOptions options = {}) noexcept : options_(options) {}
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  const EventOptions& options() const noexcept { return options_; }
  // The device of the first recording stream; nullopt before the first record.
  std::optional<int> device_index() const noexcept;
  bool is_created() const noexcept { return handle_ != 0; }

  // Records the work queued on `stream` so far (the current stream of the current device
  // when none). A stream of another device than the event's throws kRuntime "Event device
  // <d> does not match recording stream's device <s>.".
  void record(std::optional<Stream> stream = std::nullopt);
  // Makes later work on `stream` (the current stream when none) wait for this event; a
  // no-op for an event never recorded. The stream may be on any device.
  void wait(std::optional<Stream> stream = std::nullopt) const;
  // True when the recorded work has completed, or the event was never recorded.
  bool query() const;
  // Blocks until the recorded work has completed; a no-op for an event never recorded.
  void synchronize() const;
  // Milliseconds from this event to `end`. Checks, in PyTorch's order: both created with
  // enable_timing (kValue "Both events must be created with argument
  // 'enable_timing=True'."), both recorded (kValue "Both events must be recorded before
  // calculating elapsed time."), both completed (kRuntime "Both events must be completed
  // before calculating elapsed time."); then the driver (events of two devices: kDriver).
  float elapsed_time(const Event& end) const;

 private:
  void release() noexcept;

  EventOptions options_;
  int device_index_ = -1;
  std::uintptr_t handle_ = 0;  // the backend's EventHandle value; 0 before the first record
};

}  // namespace accel
