// The Level Zero driver's row of the vendor registry (Note [Vendor registry] in
// core/vendor_registry.h). Always part of libmockdev.so, with or without the Level Zero
// headers (it includes none): machine files name Level Zero codes and entry points even
// where the driver is not built. Only the hooks need the driver
// (MOCKDEV_HAVE_LEVEL_ZERO_DRIVER, set by level_zero.cmake).

#include "accel_abi/level_zero_entry_points.h"
#include "accel_abi/level_zero_results.h"
#include "core/engine_lock.h"
#include "core/vendor_registry.h"

namespace mockdev::level_zero {

#ifdef MOCKDEV_HAVE_LEVEL_ZERO_DRIVER
// ze_state.cpp (declared in ze_state.h, which needs the Level Zero headers).
bool driver_ready() MOCKDEV_REQUIRES(core::g_engine_mutex);
// ze_call_site.cpp (declared in ze_objects.h, likewise).
void list_live_objects(core::LiveObjects& out) MOCKDEV_REQUIRES(core::g_engine_mutex);
// ze_command_lists.cpp (declared in ze_objects.h, likewise).
std::optional<std::uint64_t> queue_of_handle(const void* handle)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
#endif

namespace {

// Every ze_result_t a machine file may name for a fault (faults.level_zero_init, call faults
// and sticky errors of api level_zero), codes newer than the 1.4 headers included: a backend
// built against old headers must still print them.
constexpr core::ResultCodeName kCodes[] = {
#define MOCKDEV_ZE_CODE(name, value) core::ResultCodeName{#name, static_cast<int>(value)},
    ACCEL_ZE_RESULTS(MOCKDEV_ZE_CODE)
#undef MOCKDEV_ZE_CODE
};

constexpr core::EntryPointName kEntryPoints[] = {
#define MOCKDEV_ZE_ENTRY(name) core::EntryPointName{#name, #name},
    ACCEL_ZE_SERVED_TABLE(MOCKDEV_ZE_ENTRY)
#undef MOCKDEV_ZE_ENTRY
};

}  // namespace

extern const core::ApiRow kApiRow;
constinit const core::ApiRow kApiRow{
    .api = Api::kLevelZero,
    .name = "level_zero",
    .code_family = "ZE",
    .codes = kCodes,
    .hex_codes = true,  // ze_result_t values are written in hex everywhere
    .init_fault = "level_zero_init",
    .init_error = &FaultSchedule::level_zero_init_error,
    .entry_points = kEntryPoints,
    .touches_devices_of = Vendor::kIntel,
    .device_attributes = nullptr,
    .facade = "libze_mock.so",
#ifdef MOCKDEV_HAVE_LEVEL_ZERO_DRIVER
    .initialized = &driver_ready,
    .live_objects = &list_live_objects,
    .queue_of_handle = &queue_of_handle,
#else
    .initialized = nullptr,
    .live_objects = nullptr,
    .queue_of_handle = nullptr,
#endif
};

}  // namespace mockdev::level_zero
