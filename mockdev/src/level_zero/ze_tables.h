#pragma once
// The dispatch tables the mock Level Zero driver serves to the loader. The facade
// (ze_facade.cpp, libze_mock.so) exports every *GetProcAddrTable getter the loader requires
// (17 core, 12 tools, 17 Sysman, plus the optional Exp ones) and calls these
// fill functions, which live in libmockdev.so next to the entry points they point at.
//
// Rules for every fill function (as Intel's driver fills its tables): `table` is the caller's
// struct of the version the caller was built with; write an entry only when the requested
// `version` has it (e.g. Sysman pfnInit / pfnGet only for >= ZE_API_VERSION_1_5) and only
// entries the headers this mock was built with declare; leave everything else untouched
// (the loader zero-fills). Tables the mock does not implement stay empty. The getter itself
// checks the null table (INVALID_ARGUMENT) and the major version (UNSUPPORTED_VERSION).
// Every fill function is generated from the entry-point list (Note
// [Fill functions from the entry-point list]).

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>

#include <cstdint>
#include <type_traits>

#include "accel_abi/level_zero_core_newer.h"
#include "accel_abi/level_zero_entry_points.h"
#include "accel_abi/level_zero_sysman_1_5.h"
#include "core/engine_lock.h"

namespace mockdev::level_zero {

// Note [Fill functions from the entry-point list]
// Each fill function below is MOCKDEV_ZE_FILL_FUNCTION(fill, table type, group): for every
// row of that table's group in accel_abi/level_zero_entry_points.h that the mock serves
// (kinds B, O, M), `table->member = mockdev::level_zero::name` when the requested version
// is at least the row's `since`. So the implementation of an entry point is a function
// named after it (zeMemAllocDevice), in the file that defines its table's fill function,
// usually in its unnamed namespace. The name is always qualified: unqualified, a missing
// implementation would find the Level Zero headers' declaration of the same name and
// compile into a pointer to the loader's function (a call through the table would recurse
// into the loader); qualified, it does not compile. A member added at 1.5 to a table the getter
// receives in its 1.4 type (the Sysman Driver and Device pfnGet) is written through the 1.5 layout
// of accel_abi/level_zero_sysman_1_5.h (layout_since); so are the core members newer than the 1.4
// headers (Global pfnInitDrivers 1.10, Driver pfnGetLastErrorDescription 1.6, Device
// pfnGetRootDevice 1.7, Mem and EventPool pfnPutIpcHandle 1.6, CommandList pfnHostSynchronize
// 1.6), through
// accel_abi/level_zero_core_newer.h.

// `table` as the layout of the version `Since` that added the member to be written.
template <std::uint32_t Since, class Table>
auto* layout_since(Table* table) {
  namespace abi = ::accel::abi::level_zero;
  if constexpr (Since >= ZE_MAKE_VERSION(1, 5) && std::is_same_v<Table, zes_driver_dditable_t>) {
    return reinterpret_cast<abi::zes_driver_dditable_1_5_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 5) &&
                       std::is_same_v<Table, zes_device_dditable_t>) {
    return reinterpret_cast<abi::zes_device_dditable_1_5_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 10) &&
                       std::is_same_v<Table, ze_global_dditable_t>) {
    return reinterpret_cast<abi::ze_global_dditable_1_10_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 6) &&
                       std::is_same_v<Table, ze_driver_dditable_t>) {
    return reinterpret_cast<abi::ze_driver_dditable_1_6_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 7) &&
                       std::is_same_v<Table, ze_device_dditable_t>) {
    return reinterpret_cast<abi::ze_device_dditable_1_7_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 6) &&
                       std::is_same_v<Table, ze_command_list_dditable_t>) {
    return reinterpret_cast<abi::ze_command_list_dditable_1_6_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 6) && std::is_same_v<Table, ze_mem_dditable_t>) {
    return reinterpret_cast<abi::ze_mem_dditable_1_6_t*>(table);
  } else if constexpr (Since >= ZE_MAKE_VERSION(1, 6) &&
                       std::is_same_v<Table, ze_event_pool_dditable_t>) {
    return reinterpret_cast<abi::ze_event_pool_dditable_1_6_t*>(table);
  } else {
    return table;
  }
}

// One served row of a group: `since` is (major, minor), so ZE_MAKE_VERSION since is a call.
#define MOCKDEV_ZE_FILL_ENTRY(name, member, since)                              \
  if (version >= ZE_MAKE_VERSION since) {                                       \
    ::mockdev::level_zero::layout_since<ZE_MAKE_VERSION since>(table)->member = \
        ::mockdev::level_zero::name;                                            \
  }

// The definition of `fill` (declared below) from the served rows of GROUP.
#define MOCKDEV_ZE_FILL_FUNCTION(fill, table_type, GROUP)  \
  void fill(ze_api_version_t version, table_type* table) { \
    ACCEL_ZE_SERVED_ENTRIES(GROUP, MOCKDEV_ZE_FILL_ENTRY)  \
  }

// ze_driver.cpp / ze_devices.cpp (the driver and devices work)
void fill_global_table(ze_api_version_t version, ze_global_dditable_t* table);
void fill_driver_table(ze_api_version_t version, ze_driver_dditable_t* table);
void fill_device_table(ze_api_version_t version, ze_device_dditable_t* table);
// ze_sysman.cpp: the 1.4 tables (legacy route). The >= 1.5 tables (zesGetGlobalProcAddrTable,
// pfnGet in the zes Driver and Device tables) are filled through the layouts declared in
// accel_abi/level_zero_sysman_1_5.h, which the facade uses when the requested version is >= 1.5.
void fill_sysman_device_table(ze_api_version_t version, zes_device_dditable_t* table);
void fill_sysman_driver_table(ze_api_version_t version, zes_driver_dditable_t* table);
void fill_sysman_memory_table(ze_api_version_t version, zes_memory_dditable_t* table);
// zesGetGlobalProcAddrTable (1.5): pfnInit only for requests >= 1.5.
void fill_sysman_global_table(ze_api_version_t version,
                              accel::abi::level_zero::zes_global_dditable_1_5_t* table);

// ze_context.cpp, ze_memory.cpp, ze_virtual_memory.cpp, ze_command_lists.cpp, ze_events.cpp
// (the objects, objects.cmake)
void fill_context_table(ze_api_version_t version, ze_context_dditable_t* table);
void fill_mem_table(ze_api_version_t version, ze_mem_dditable_t* table);
void fill_virtual_mem_table(ze_api_version_t version, ze_virtual_mem_dditable_t* table);
void fill_physical_mem_table(ze_api_version_t version, ze_physical_mem_dditable_t* table);
void fill_command_list_table(ze_api_version_t version, ze_command_list_dditable_t* table);
void fill_command_queue_table(ze_api_version_t version, ze_command_queue_dditable_t* table);
void fill_event_pool_table(ze_api_version_t version, ze_event_pool_dditable_t* table);
void fill_event_table(ze_api_version_t version, ze_event_dditable_t* table);
void fill_fence_table(ze_api_version_t version, ze_fence_dditable_t* table);
// ze_modules.cpp (modules, build logs, kernels; launches are command-list entries)
void fill_module_table(ze_api_version_t version, ze_module_dditable_t* table);
void fill_module_build_log_table(ze_api_version_t version, ze_module_build_log_dditable_t* table);
void fill_kernel_table(ze_api_version_t version, ze_kernel_dditable_t* table);

// What a context-level reset needs from the objects' files: every object of
// every context is dropped (called when the state is rebuilt for a new generation and by
// the child policy "reinit").
void drop_all_objects() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::level_zero
