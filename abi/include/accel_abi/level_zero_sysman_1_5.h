#pragma once
// The Sysman dispatch tables as a loader of spec >= 1.5 (loader >= 1.9) passes them to a
// driver's zes*ProcAddrTable getters, declared here because Debian's 1.4 headers stop
// before them (a loader >= 1.9 asks a driver for pfnInit and pfnGet at version >= 1.5:
// oneapi-src/level-zero, source/loader/zes_ldrddi.cpp). Tables only ever grow at the end (the
// Level Zero specification's versioning rules), so each is the 1.4 table's members followed
// by what 1.5 appended, in that order; a driver writes a member only when the requested
// version has it.
//
// Used by the mock Level Zero driver (which fills pfnInit and the two pfnGet entries for
// requests >= 1.5) and by the test stand-in for a Sysman-capable loader
// (tests/unit/mockdev/level_zero/zes_loader_shim), which requests them at 1.5.

#include <cstdint>

#include <level_zero/zes_ddi.h>

#include "accel_abi/level_zero.h"

namespace accel::abi::level_zero {

using PFN_zesDriverGet_1_5 = PFN_zesDriverGet;
using PFN_zesDeviceGet_1_5 = PFN_zesDeviceGet;

// zesGetGlobalProcAddrTable (new in 1.5).
struct zes_global_dditable_1_5_t {
  PFN_zesInit pfnInit;
};
using PFN_zesGetGlobalProcAddrTable = ze_result_t (*)(ze_api_version_t, zes_global_dditable_1_5_t*);

// zes Driver table: 1.4's two members, then pfnGet (1.5).
struct zes_driver_dditable_1_5_t {
  zes_pfnDriverEventListen_t pfnEventListen;
  zes_pfnDriverEventListenEx_t pfnEventListenEx;
  PFN_zesDriverGet pfnGet;
};

// zes Device table: 1.4's 29 members, then pfnGet and the six overclock entries (1.5).
struct zes_device_dditable_1_5_t {
  zes_device_dditable_t v1_4;  // the 1.4 layout, unchanged (minor versions only append)
  PFN_zesDeviceGet pfnGet;
  void* pfnSetOverclockWaiver;      // the overclock entries: never filled by the mock
  void* pfnGetOverclockDomains;
  void* pfnGetOverclockControls;
  void* pfnResetOverclockSettings;
  void* pfnReadOverclockState;
  void* pfnEnumOverclockDomains;
};

static_assert(sizeof(zes_driver_dditable_1_5_t) == sizeof(zes_driver_dditable_t) + sizeof(void*),
              "1.5 appends exactly pfnGet to the zes Driver table");
static_assert(sizeof(zes_device_dditable_1_5_t) == sizeof(zes_device_dditable_t) + 7 * sizeof(void*),
              "1.5 appends pfnGet and six overclock entries to the zes Device table");

}  // namespace accel::abi::level_zero
