// The device-level public API (accelerator.h) over the installed RuntimeState.
#include "accel/accelerator.h"

#include <atomic>
#include <cstdint>
#include <string>

#include "accel/detail/thread_stream_cache.h"
#include "core/backend_registry.h"
#include "core/device_requirement.h"
#include "core/device_resolution.h"
#include "core/runtime.h"
#include "spi/thread_device.h"

namespace accel {

using detail::Backend;
using detail::RuntimeState;

namespace detail {
constinit thread_local std::uint64_t t_thread_device_key ACCEL_TLS_INITIAL_EXEC = kForgottenKey;
constinit std::atomic<std::uint64_t> g_thread_device_key_base{0};
}  // namespace detail

namespace {

// Note [Thread-local current device] (thread_device.h).
bool cache_hit() noexcept {
  int index;
  return detail::cached_thread_device_index(&index);
}

// Caches `index` for this thread under `generation`: the only way a valid key is written.
// Only under the published generation, and after bringing the thread's stream table to it,
// so that a key of the published generation implies a table of that generation and
// StreamGuard's inline entry tests the key alone (accel/detail/thread_stream_cache.h).
// Under any other generation (a state being installed or replaced) the entry is forgotten
// instead: such a key could never match, as a replaced generation is never published again.
void cache_thread_device(std::uint64_t generation, int index, bool pending) noexcept {
  if (detail::g_thread_device_key_base.load(std::memory_order_relaxed) != generation << 8) {
    detail::forget_thread_device();
    return;
  }
  detail::thread_stream_ids();  // resets a table of an older generation
  detail::store_thread_device(generation, index, pending);
}

void remember(RuntimeState& state, int index, bool pending) noexcept {
  if (!state.lazy().initialized()) return;  // during init() callbacks: do not cache
  cache_thread_device(state.generation(), index, pending);
}

// The thread's current index: cached, or asked from the backend and checked to be a
// visible index before it is cached. Requires initialisation.
int query_current(RuntimeState& state) {
  int index;
  if (detail::cached_thread_device_index(&index)) return index;
  index = detail::check(state.backend()->current_device());
  int count = state.device_count();
  if (index < 0 || index >= count) {
    ErrorDetail detail;
    detail.device = index;
    throw Error(ErrorKind::kDriver,
                "current_device: the backend reported device " + std::to_string(index) +
                    ", which is not a visible device (device=" + std::to_string(index) +
                    ", device_count=" + std::to_string(count) + ")",
                detail);
  }
  remember(state, index, false);
  return index;
}

// Range check, bad-fork check, initialisation and ordinal check shared by device calls.
RuntimeState& prepare_device_call(int index, std::string_view operation) {
  detail::check_device_index_range(index);
  RuntimeState& state = detail::current_state();
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, index, operation);
  return state;
}

// The value of a backend call that may have switched the thread's context for its
// duration; on failure the thread may have been left elsewhere, so its entry is forgotten.
template <class T>
T check_switching_call(detail::Result<T> result) {
  if (!result.ok()) detail::forget_thread_device();
  return detail::check(std::move(result));
}

}  // namespace

namespace detail {
void remember_thread_device_after_failed_restore(int index) noexcept {
  try {
    RuntimeState& state = current_state();
    cache_thread_device(state.generation(), index, true);
  } catch (...) {
  }
}
}  // namespace detail

std::optional<Device> current_accelerator(bool check_available) {
  RuntimeState& state = detail::current_state();
  if (state.config_error()) detail::throw_error(*state.config_error());
  if (state.backend() == nullptr) return std::nullopt;
  if (check_available) {
    // Note [Misconfiguration is an error]: the "accelerator, else CPU" choice raises a
    // misconfiguration instead of answering "no accelerator".
    if (detail::check(detail::visible_device_count(state)) <= 0) return std::nullopt;
  }
  return Device(state.backend()->type());
}

bool is_available() noexcept { return device_count() > 0; }

int device_count() noexcept {
  try {
    RuntimeState& state = detail::current_state();
    detail::Result<int> count = detail::visible_device_count(state);
    if (count.ok()) return *count;
    // Note [Misconfiguration is an error]: answer 0 and say why, once.
    state.warn_once(count.status().message());
    return 0;
  } catch (...) {
    return 0;
  }
}

void set_device_index(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/false);
  if (index < 0) return;  // PyTorch: a negative index is a no-op, before anything else
  // A hit implies an initialised runtime, no bad fork and a valid index (thread_device.h).
  if (detail::thread_device_is_current(index)) return;
  detail::check_device_index_range(index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, index, "set_device_index");
  bool pending = cache_hit() && detail::thread_device_pending();
  if (query_current(state) == index && !pending) return;
  detail::check(state.backend()->set_device(index));
  remember(state, index, false);
}

int detail::current_device_index_uncached() {
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  detail::ensure_initialized(state);
  return query_current(state);
}

int exchange_device(int device_index) {
  if (detail::thread_device_is_current(device_index)) return device_index;
  detail::check_device_index_range(device_index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, device_index, "exchange_device");
  bool pending = cache_hit() && detail::thread_device_pending();
  int previous = query_current(state);
  if (previous == device_index && !pending) return previous;
  detail::check(state.backend()->set_device(device_index));
  remember(state, device_index, false);
  return previous;
}

int maybe_exchange_device(int device_index) {
  if (detail::thread_device_is(device_index)) return device_index;
  detail::check_device_index_range(device_index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, device_index, "maybe_exchange_device");
  int previous = query_current(state);
  if (previous == device_index) return previous;
  detail::check(state.backend()->maybe_set_device(device_index));
  remember(state, device_index, true);
  return previous;
}

DeviceCapability get_device_capability(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  RuntimeState& state = prepare_device_call(index, "get_device_capability");
  return detail::check(state.backend()->device_capability(index));
}

MemoryInfo get_memory_info(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  RuntimeState& state = prepare_device_call(index, "get_memory_info");
  return check_switching_call(state.backend()->memory_info(index));
}

DeviceProperties get_device_properties(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  RuntimeState& state = prepare_device_call(index, "get_device_properties");
  return detail::check(state.backend()->device_properties(index));
}

BackendReport backend_report() noexcept {
  BackendReport report;
  try {
    report.compiled_backends = detail::compiled_backend_names();
    RuntimeState& state = detail::current_state();
    if (state.config_error()) {
      report.backend = "none";
      report.unavailable_reason = state.config_error()->message();
      report.count_source = "none";
      report.config_error = state.config_error()->message();
      report.config_error_kind = state.config_error()->kind();
      report.required_devices = state.required_devices();
      return report;
    }
    if (state.backend() == nullptr) {
      report.backend = "none";
      report.unavailable_reason =
          "no accelerator selected (ACCEL_BACKEND=none or no backend compiled)";
      report.count_source = "none";
      return report;
    }
    std::vector<std::string> compiled = std::move(report.compiled_backends);
    report = state.backend()->report();
    report.backend = state.backend()->name();
    report.selected = true;
    report.compiled_backends = std::move(compiled);
    report.required_devices = state.required_devices();
    if (report.config_error.empty() && report.device_count < state.required_devices()) {
      std::string why = state.backend()->visibility_filter();
      if (report.device_count == 0 && why.empty()) why = report.unavailable_reason;
      detail::Status shortfall =
          detail::required_devices_error(state.required_devices(), report.device_count, why);
      report.config_error = shortfall.message();
      report.config_error_kind = shortfall.kind();
      // As is_available() answers: the requirement makes the accelerator unusable.
      report.available = false;
      report.unavailable_reason = shortfall.message();
    }
  } catch (...) {
  }
  return report;
}

}  // namespace accel
