// Streams (accel/stream.h) over the backend SPI: values, pools, the per-thread current
// stream (Note [Thread-local current streams] in current_stream.h) and synchronize().
#include "accel/stream.h"

#include <string>

#include "accel/accelerator.h"
#include "accel/event.h"
#include "api/current_stream.h"
#include "core/device_resolution.h"
#include "spi/thread_device.h"

namespace accel {

namespace detail {

constinit thread_local ThreadStreams t_thread_streams ACCEL_TLS_INITIAL_EXEC = {};

RuntimeState& prepare_stream_call(int index) {
  check_device_index_range(index);
  RuntimeState& state = current_state();
  fail_if_bad_fork(state);
  ensure_initialized(state);
  const int count = state.device_count();
  if (index >= count) {
    ErrorDetail detail;
    detail.device = index;
    throw Error(ErrorKind::kIndex,
                "Device index value " + std::to_string(index) + " is out of index range [0, " +
                    std::to_string(count) + ")",
                detail);
  }
  return state;
}

void check_stream_call(const Status& status) {
  if (status.ok()) return;
  forget_thread_device();
  throw_error(status);
}

StreamHandle stream_handle(RuntimeState& state, const Stream& stream) {
  return state.stream_pools().handle(initialized_backend(state), stream.device_index(),
                                     stream.id());
}

}  // namespace detail

namespace {

// Lower-case backend name for PyTorch's "cuda stream" texts.
std::string backend_name(detail::RuntimeState& state) {
  return state.backend() != nullptr ? state.backend()->name() : "accelerator";
}

}  // namespace

Stream::Stream(DeviceArg device, int priority) : device_index_(0), id_(0) {
  const int index = detail::resolve_device_index(device, /*optional=*/true);
  detail::RuntimeState& state = detail::prepare_stream_call(index);
  if (priority > 0) {
    throw Error(ErrorKind::kValue, "Expected " + backend_name(state) +
                                       " stream priority to be less than or equal to 0, got " +
                                       std::to_string(priority));
  }
  // Very negative priorities clamp to the highest level (next_stream_id clamps to levels).
  const int level = priority < -detail::kMaxPriorityLevels ? detail::kMaxPriorityLevels : -priority;
  id_ = state.stream_pools().next_stream_id(detail::initialized_backend(state), index, level);
  device_index_ = index;
}

Stream Stream::default_stream(DeviceArg device) {
  const int index = detail::resolve_device_index(device, /*optional=*/true);
  detail::prepare_stream_call(index);
  return Stream::unchecked(index, 0);
}

Device Stream::device() const {
  detail::RuntimeState& state = detail::current_state();
  const DeviceType type = state.backend() != nullptr ? state.backend()->type() : DeviceType::kCUDA;
  return Device(type, device_index_);
}

int Stream::priority() const noexcept {
  const int level = detail::pool_stream_level(id_);
  return level > 0 ? -level : 0;
}

std::uintptr_t Stream::native_handle() const {
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  return detail::stream_handle(state, *this).value;
}

bool Stream::query() const {
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  const detail::StreamHandle handle = detail::stream_handle(state, *this);
  return detail::check_stream_call(
      detail::initialized_backend(state).query_stream(device_index_, handle));
}

void Stream::synchronize() const {
  detail::RuntimeState& state = detail::prepare_stream_call(device_index_);
  const detail::StreamHandle handle = detail::stream_handle(state, *this);
  detail::check_stream_call(
      detail::initialized_backend(state).synchronize_stream(device_index_, handle));
}

void Stream::wait_event(const Event& event) const { event.wait(*this); }

void Stream::wait_stream(const Stream& other) const { wait_event(other.record_event()); }

Event Stream::record_event() const {
  Event event;
  event.record(*this);
  return event;
}

Event& Stream::record_event(Event& event) const {
  event.record(*this);
  return event;
}

std::pair<int, int> priority_range(DeviceArg device) {
  const int index = detail::resolve_device_index(device, /*optional=*/true);
  detail::RuntimeState& state = detail::prepare_stream_call(index);
  const detail::DevicePool& pool =
      state.stream_pools().device_pool(detail::initialized_backend(state), index);
  return {pool.range.least, pool.range.greatest};
}

Stream current_stream(DeviceArg device) {
  const int index = detail::resolve_device_index(device, /*optional=*/true);
  detail::RuntimeState& state = detail::prepare_stream_call(index);
  detail::remember_stream_checks_passed(state, index);
  return Stream::unchecked(index, detail::thread_stream_ids()[index]);
}

void set_stream(const Stream& stream) {
  const int index = stream.device_index();
  detail::prepare_stream_call(index);
  // torch.accelerator.set_stream: the stream's device becomes current first.
  if (current_device_index() != index) set_device_index(index);
  detail::exchange_thread_stream(stream);
}

void synchronize(DeviceArg device) {
  const std::optional<int> explicit_index = detail::resolve_explicit_device_index(device);
  detail::RuntimeState& state = detail::current_state();
  if (explicit_index) {
    detail::check_device_index_range(*explicit_index);
    detail::fail_if_bad_fork(state);
    // PyTorch: before initialisation, synchronising an explicit device does nothing.
    if (!state.lazy().initialized()) return;
  }
  const int index =
      explicit_index ? *explicit_index : detail::resolve_device_index(device, /*optional=*/true);
  detail::prepare_stream_call(index);
  detail::check_stream_call(detail::initialized_backend(state).synchronize_device(index));
}

}  // namespace accel
