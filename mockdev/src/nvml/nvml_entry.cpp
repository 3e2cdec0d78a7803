// The api:: functions of nvml_api.h, generated from ACCEL_NVML_TABLE: each takes the
// engine lock, counts the call, fires a call fault and applies the init gate from its
// row's traits, and calls the hand-written impl:: function for the rest.

#include <array>
#include <optional>

#include "core/engine.h"
#include "nvml/entry_points.h"
#include "nvml/nvml_api.h"
#include "nvml/nvml_state.h"

namespace mockdev::nvml {
namespace {

// Counts a call of `entry` through its own cached count (Note [Counted calls] in
// core/engine.h); guarded by the engine lock.
std::optional<int> count(Entry entry) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static std::array<core::CallCounter, kEntries.size()> counters;
  return core::count_call(info(entry).symbol, &counters[static_cast<std::size_t>(entry)]);
}

// The early return of a call, by its return type: an nvmlReturn_t carries faults and the
// init gate; a string (nvmlErrorString) is only counted.
template <typename Ret>
std::optional<Ret> enter(Entry entry) MOCKDEV_REQUIRES(core::g_engine_mutex);

template <>
std::optional<nvmlReturn_t> enter<nvmlReturn_t>(Entry entry) {
  if (std::optional<int> fault = count(entry))
    return static_cast<nvmlReturn_t>(*fault);
  if ((info(entry).traits & kNvmlNeedsInit) != 0 && !nvml_ready()) return NVML_ERROR_UNINITIALIZED;
  return std::nullopt;
}

template <>
std::optional<const char*> enter<const char*>(Entry entry) {
  (void)count(entry);
  return std::nullopt;
}

}  // namespace

namespace api {
#define MOCKDEV_NVML_DEFINE_API(symbol, ret, params, args, traits) \
  ret symbol params {                                              \
    core::EngineLock lock;                                         \
    if (auto early = enter<ret>(Entry::symbol)) return *early;     \
    return impl::symbol args;                                      \
  }
ACCEL_NVML_TABLE(MOCKDEV_NVML_DEFINE_API)
#undef MOCKDEV_NVML_DEFINE_API
}  // namespace api

}  // namespace mockdev::nvml
