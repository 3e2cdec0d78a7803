// Events (accel/event.h) over the backend SPI, with PyTorch's CUDAEvent rules: created
// lazily on the first recording stream's device; never-recorded events stand for no work.
#include "accel/event.h"

#include <string>
#include <utility>

#include "api/current_stream.h"
#include "core/tool_library.h"

namespace accel {

namespace {

detail::EventHandle handle_of(std::uintptr_t value) noexcept { return detail::EventHandle{value}; }

// The current stream of the current device (the default argument of record and wait).
Stream stream_or_current(const std::optional<Stream>& stream) {
  return stream ? *stream : current_stream();
}

}  // namespace

Event::~Event() { release(); }

Event::Event(Event&& other) noexcept
    : options_(other.options_),
      device_index_(std::exchange(other.device_index_, -1)),
      handle_(std::exchange(other.handle_, 0)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    release();
    options_ = other.options_;
    device_index_ = std::exchange(other.device_index_, -1);
    handle_ = std::exchange(other.handle_, 0);
  }
  return *this;
}

// Destroys the driver event, swallowing errors (PyTorch). Never in a forked child, whose
// driver must not be touched, and never for a runtime that is no longer installed.
void Event::release() noexcept {
  if (handle_ == 0) return;
  try {
    detail::RuntimeState& state = detail::current_state();
    if (!state.lazy().in_bad_fork() && state.lazy().initialized() && state.backend() != nullptr &&
        device_index_ < state.device_count()) {
      (void)state.backend()->destroy_event(device_index_, handle_of(handle_));
    }
  } catch (...) {
  }
  handle_ = 0;
  device_index_ = -1;
}

std::optional<int> Event::device_index() const noexcept {
  return handle_ == 0 ? std::nullopt : std::optional<int>(device_index_);
}

void Event::record(std::optional<Stream> stream) {
  const Stream target = stream_or_current(stream);
  detail::RuntimeState& state = detail::prepare_stream_call(target.device_index());
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));
  detail::Backend& backend = detail::initialized_backend(state);
  if (handle_ != 0 && device_index_ != target.device_index()) {
    ErrorDetail detail;
    detail.device = target.device_index();
    throw Error(ErrorKind::kRuntime,
                "Event device " + std::to_string(device_index_) +
                    " does not match recording stream's device " +
                    std::to_string(target.device_index()) + ".",
                detail);
  }
  const detail::StreamHandle stream_handle = detail::stream_handle(state, target);
  if (handle_ == 0) {
    const detail::EventHandle created =
        detail::check_stream_call(backend.create_event(target.device_index(), options_));
    handle_ = created.value;
    device_index_ = target.device_index();
  }
  detail::check_stream_call(backend.record_event(device_index_, handle_of(handle_), stream_handle));
}

void Event::wait(std::optional<Stream> stream) const {
  const Stream target = stream_or_current(stream);
  detail::RuntimeState& state = detail::prepare_stream_call(target.device_index());
  if (handle_ == 0) return;  // never recorded: stands for no work
  // The program's line for a tool (Note [The tool interface]): after initialisation.
  const detail::ToolApiScope tool_scope(__builtin_return_address(0));

  const detail::StreamHandle stream_handle = detail::stream_handle(state, target);
  detail::check_stream_call(detail::initialized_backend(state).stream_wait_event(
      target.device_index(), stream_handle, handle_of(handle_)));
}

bool Event::query() const {
  if (handle_ == 0) {
    detail::fail_if_bad_fork(detail::current_state());
    return true;
  }
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  return detail::check_stream_call(
      detail::initialized_backend(state).query_event(device_index_, handle_of(handle_)));
}

void Event::synchronize() const {
  if (handle_ == 0) {
    detail::fail_if_bad_fork(detail::current_state());
    return;
  }
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  detail::check_stream_call(
      detail::initialized_backend(state).synchronize_event(device_index_, handle_of(handle_)));
}

float Event::elapsed_time(const Event& end) const {
  detail::fail_if_bad_fork(detail::current_state());
  if (!options_.enable_timing || !end.options_.enable_timing) {
    throw Error(ErrorKind::kValue,
                "Both events must be created with argument 'enable_timing=True'.");
  }
  if (handle_ == 0 || end.handle_ == 0) {
    throw Error(ErrorKind::kValue, "Both events must be recorded before calculating elapsed time.");
  }
  if (!query() || !end.query()) {
    throw Error(ErrorKind::kRuntime,
                "Both events must be completed before calculating elapsed time.");
  }
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  return detail::check_stream_call(detail::initialized_backend(state).event_elapsed_time(
      device_index_, handle_of(handle_), handle_of(end.handle_)));
}

}  // namespace accel
