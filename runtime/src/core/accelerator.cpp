// The device-level public API (accelerator.h) over the installed RuntimeState.
#include "accel/accelerator.h"

#include <cstdint>

#include "core/backend_registry.h"
#include "core/device_resolution.h"
#include "core/runtime.h"
#include "core/thread_device.h"

namespace accel {

using detail::Backend;
using detail::RuntimeState;

namespace {

// Note [Thread-local current device] (thread_device.h).
struct ThreadDevice {
  std::uint64_t generation = 0;  // 0: never valid (generations start at 1)
  int index = 0;
  bool pending = false;
};
thread_local ThreadDevice t_device;

bool cache_hit(const RuntimeState& state) noexcept {
  return t_device.generation == state.generation();
}

void remember(RuntimeState& state, int index, bool pending) noexcept {
  if (!state.lazy().initialized()) return;  // during init() callbacks: do not cache
  t_device = ThreadDevice{state.generation(), index, pending};
}

// The thread's current index: cached, or asked from the backend. Requires initialisation.
int query_current(RuntimeState& state) {
  if (cache_hit(state)) return t_device.index;
  int index = detail::check(state.backend()->current_device());
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

}  // namespace

namespace detail {
void remember_thread_device_after_failed_restore(int index) noexcept {
  try {
    RuntimeState& state = current_state();
    t_device = ThreadDevice{state.generation(), index, true};
  } catch (...) {
  }
}
}  // namespace detail

std::optional<Device> current_accelerator(bool check_available) {
  RuntimeState& state = detail::current_state();
  if (state.config_error()) detail::throw_error(*state.config_error());
  if (state.backend() == nullptr) return std::nullopt;
  if (check_available && !is_available()) return std::nullopt;
  return Device(state.backend()->type());
}

bool is_available() noexcept { return device_count() > 0; }

int device_count() noexcept {
  try {
    RuntimeState& state = detail::current_state();
    Backend* backend = state.backend();
    if (backend == nullptr || state.config_error()) return 0;
    bool bad_fork = state.lazy().in_bad_fork();
    if (state.lazy().initialized() && !bad_fork) return state.device_count();
    int count = backend->fork_safe_device_count();
    if (count >= 0) return count;
    // Note [Fork safety]: the driver's count initialises the driver; never in a bad fork,
    // and only after registering the fork handler.
    if (bad_fork) return 0;
    detail::register_fork_handler(state);
    detail::Result<int> driver_count = backend->driver_device_count();
    return driver_count.ok() && *driver_count > 0 ? *driver_count : 0;
  } catch (...) {
    return 0;
  }
}

void set_device_index(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/false);
  if (index < 0) return;  // PyTorch: a negative index is a no-op, before anything else
  detail::check_device_index_range(index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (cache_hit(state) && t_device.index == index && !t_device.pending) return;
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, index, "set_device_index");
  bool pending = cache_hit(state) && t_device.pending;
  if (query_current(state) == index && !pending) return;
  detail::check(state.backend()->set_device(index));
  remember(state, index, false);
}

int current_device_index() {
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (cache_hit(state)) return t_device.index;
  detail::ensure_initialized(state);
  return query_current(state);
}

int exchange_device(int device_index) {
  detail::check_device_index_range(device_index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (cache_hit(state) && t_device.index == device_index && !t_device.pending) {
    return device_index;
  }
  detail::ensure_initialized(state);
  detail::check_device_ordinal(state, device_index, "exchange_device");
  bool pending = cache_hit(state) && t_device.pending;
  int previous = query_current(state);
  if (previous == device_index && !pending) return previous;
  detail::check(state.backend()->set_device(device_index));
  remember(state, device_index, false);
  return previous;
}

int maybe_exchange_device(int device_index) {
  detail::check_device_index_range(device_index);
  RuntimeState& state = detail::current_state();
  detail::fail_if_bad_fork(state);
  if (cache_hit(state) && t_device.index == device_index) return device_index;
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
  DeviceProperties properties = detail::check(state.backend()->device_properties(index));
  // Note [Supported dtypes]: every dtype can be allocated and converted on any CUDA
  // device the driver accepts, except that bfloat16 needs compute capability 8.0 (Ampere)
  // and the float8 types need 8.9 (Ada/Hopper), where the hardware gained conversions.
  DeviceCapability capability;
  capability.major = properties.major;
  capability.minor = properties.minor;
  int cc = properties.major * 10 + properties.minor;
  for (ScalarType type : all_scalar_types()) {
    if (type == ScalarType::kBFloat16 && cc < 80) continue;
    if ((type == ScalarType::kFloat8_e5m2 || type == ScalarType::kFloat8_e4m3fn) && cc < 89) {
      continue;
    }
    capability.supported_dtypes.push_back(type);
  }
  return capability;
}

MemoryInfo get_memory_info(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  RuntimeState& state = prepare_device_call(index, "get_memory_info");
  return detail::check(state.backend()->memory_info(index));
}

DeviceProperties get_device_properties(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  RuntimeState& state = prepare_device_call(index, "get_device_properties");
  return detail::check(state.backend()->device_properties(index));
}

BackendReport backend_report() noexcept {
  BackendReport report;
  try {
    report.compiled_backends = detail::compiled_backends();
    RuntimeState& state = detail::current_state();
    if (state.config_error()) {
      report.backend = "none";
      report.unavailable_reason = state.config_error()->message();
      report.count_source = "none";
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
    report.compiled_backends = std::move(compiled);
  } catch (...) {
  }
  return report;
}

}  // namespace accel
