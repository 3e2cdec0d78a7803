#pragma once
// The Level Zero loader entry points the runtime's level_zero backend resolves at run time
// (dlopen of the loader, then dlsym per name), one row each, so the list of what the
// backend needs lives in one place and a loader that lacks one is named in the error.
//
// Types come from the loader's own headers (Debian's libze-dev 1.8.12, API 1.4; that loader
// exports no entry point of 1.5 or later). Rows of ACCEL_ZE_REQUIRED_TABLE are exported by every
// loader since 1.8 and their absence makes the backend unavailable ("the Level Zero loader <file>
// lacks <symbol>"). Rows of ACCEL_ZE_OPTIONAL_TABLE arrived later (zesInit and friends with loader
// 1.9 / spec
// 1.5, zeCommandListHostSynchronize with 1.10 / spec 1.6); they are used only when dlsym
// finds them AND the driver's zeDriverGetApiVersion reports their version.
// Their types are declared here because the 1.4 headers do not have them; the declarations
// follow the newer headers' signatures exactly (ABI facts, checked by the mock driver's
// tests, which serve them at version 1.5).
//
// X(name): `name` is both the exported symbol and the function declared by the headers.
// O(name, type): an optional entry point of function type `type`.

#include <cstddef>
#include <cstdint>

#include <level_zero/loader/ze_loader.h>
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include "accel_abi/level_zero_entry_points.h"

namespace accel::abi::level_zero {

// ---- declarations the 1.4 headers lack (spec 1.5+ / 1.7+) ------------------------------

// zesInit flags (spec 1.5): must be 0 (Level Zero Sysman API, zesInit).
using zes_init_flags_t = std::uint32_t;
using PFN_zesInit = ze_result_t (*)(zes_init_flags_t flags);
using PFN_zesDriverGet = ze_result_t (*)(std::uint32_t* pCount, zes_driver_handle_t* phDrivers);
using PFN_zesDeviceGet = ze_result_t (*)(zes_driver_handle_t hDriver, std::uint32_t* pCount,
                                         zes_device_handle_t* phDevices);
using PFN_zeCommandListHostSynchronize = ze_result_t (*)(ze_command_list_handle_t hCommandList,
                                                         std::uint64_t timeout);

// zes_device_ext_properties_t (spec 1.7), chained to zes_device_properties_t through pNext.
inline constexpr int kZesStructureTypeDeviceExtProperties = 0x2d;
inline constexpr std::uint32_t kZesDevicePropertyFlagIntegrated = 0x1;
inline constexpr std::uint32_t kZesDevicePropertyFlagSubdevice = 0x2;
inline constexpr std::uint32_t kZesDevicePropertyFlagEcc = 0x4;
inline constexpr std::uint32_t kZesDevicePropertyFlagOnDemandPaging = 0x8;
struct zes_device_ext_properties_t {
  int stype;            // zes_structure_type_t: kZesStructureTypeDeviceExtProperties
  void* pNext;
  std::uint8_t uuid[16];  // zes_uuid_t (spec 1.7): equal to the core uuid
  int type;             // zes_device_type_t: 1 = GPU
  std::uint32_t flags;  // kZesDevicePropertyFlag*
};

// ---- the entry points -------------------------------------------------------------------
// Both lists are selections of the one list of Level Zero entry points,
// accel_abi/level_zero_entry_points.h (kinds B and R required, O and P optional), which the
// mock driver's list of served entry points is selected from too.
#define ACCEL_ZE_REQUIRED_TABLE(X) ACCEL_ZE_REQUIRED_NAMES(X)

// An optional row's function type is PFN_<name>, declared above.
#define ACCEL_ZE_ROW_OPTIONAL_TYPED(O, kind, name, ...) ACCEL_ZE_OPTIONAL_TYPED_##kind(O, name)
#define ACCEL_ZE_OPTIONAL_TYPED_B(O, name)
#define ACCEL_ZE_OPTIONAL_TYPED_R(O, name)
#define ACCEL_ZE_OPTIONAL_TYPED_O(O, name) O(name, ::accel::abi::level_zero::PFN_##name)
#define ACCEL_ZE_OPTIONAL_TYPED_P(O, name) O(name, ::accel::abi::level_zero::PFN_##name)
#define ACCEL_ZE_OPTIONAL_TYPED_M(O, name)
#define ACCEL_ZE_OPTIONAL_TABLE(O) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_OPTIONAL_TYPED, O)

// The function-pointer struct the backend fills: one member per row, named as the row.
struct ZeApi {
#define ACCEL_ZE_MEMBER(name) decltype(&::name) name = nullptr;
  ACCEL_ZE_REQUIRED_TABLE(ACCEL_ZE_MEMBER)
#undef ACCEL_ZE_MEMBER
#define ACCEL_ZE_OPTIONAL_MEMBER(name, type) type name = nullptr;
  ACCEL_ZE_OPTIONAL_TABLE(ACCEL_ZE_OPTIONAL_MEMBER)
#undef ACCEL_ZE_OPTIONAL_MEMBER
};

}  // namespace accel::abi::level_zero
