#pragma once
// The core dispatch-table members and types newer than Debian's 1.4 headers that the mock
// Level Zero driver serves, declared here as accel_abi/level_zero_sysman_1_5.h declares the
// Sysman 1.5 tables. A loader of a newer spec passes its own, longer tables to a driver's
// ze*ProcAddrTable getters and asks at its own version; tables only ever grow at the end (the
// Level Zero specification's versioning rules), so each layout is the 1.4 table followed by
// what later versions appended, up to the member the mock writes:
//   Global  pfnInitDrivers (1.10; loaders >= 1.18 route zeInitDrivers only to drivers that
//           fill it: oneapi-src/level-zero source/loader/ze_ldrddi.cpp)
//   Driver  pfnGetLastErrorDescription (1.6)
//   Device  pfnGetRootDevice (1.7)
//   Mem, EventPool  pfnPutIpcHandle (1.6)
//   CommandList  pfnHostSynchronize (1.6)
// A driver writes a member only when the requested version has it, so Debian's loader (which
// asks for 1.4) never sees them. Members between the 1.4 table and the one written are
// declared as void* and never filled.

#include <level_zero/ze_ddi.h>

#include <cstdint>

namespace accel::abi::level_zero {

// zeInitDrivers' descriptor (1.10): which driver types to initialise and return.
constexpr std::uint32_t kStructureTypeInitDriverTypeDesc = 0x00020021;  // ZE_STRUCTURE_TYPE_...
constexpr std::uint32_t kInitDriverTypeFlagGpu = 0x1;  // ZE_INIT_DRIVER_TYPE_FLAG_GPU
constexpr std::uint32_t kInitDriverTypeFlagNpu = 0x2;  // ZE_INIT_DRIVER_TYPE_FLAG_NPU
struct ze_init_driver_type_desc_t {
  std::uint32_t stype;  // ze_structure_type_t
  const void* pNext;
  std::uint32_t flags;  // ze_init_driver_type_flags_t
};

using PFN_zeInitDrivers = ze_result_t(ZE_APICALL*)(std::uint32_t* pCount,
                                                   ze_driver_handle_t* phDrivers,
                                                   ze_init_driver_type_desc_t* desc);
using PFN_zeDriverGetLastErrorDescription = ze_result_t(ZE_APICALL*)(ze_driver_handle_t,
                                                                     const char** ppString);
using PFN_zeDeviceGetRootDevice = ze_result_t(ZE_APICALL*)(ze_device_handle_t,
                                                           ze_device_handle_t* phRootDevice);
// The same type accel_abi/level_zero.h declares for the backend (a redeclaration of one alias).
using PFN_zeCommandListHostSynchronize = ze_result_t(ZE_APICALL*)(ze_command_list_handle_t,
                                                                  std::uint64_t timeout);
using PFN_zeMemPutIpcHandle = ze_result_t(ZE_APICALL*)(ze_context_handle_t, ze_ipc_mem_handle_t);
using PFN_zeEventPoolPutIpcHandle = ze_result_t(ZE_APICALL*)(ze_context_handle_t,
                                                             ze_ipc_event_pool_handle_t);

// Global table: pfnInit (1.0), then pfnInitDrivers (1.10).
struct ze_global_dditable_1_10_t {
  ze_global_dditable_t v1_4;
  PFN_zeInitDrivers pfnInitDrivers;
};

// Driver table: 1.4's six members, then pfnGetLastErrorDescription (1.6).
struct ze_driver_dditable_1_6_t {
  ze_driver_dditable_t v1_4;
  PFN_zeDriverGetLastErrorDescription pfnGetLastErrorDescription;
};

// Device table: 1.4's 18 members, then pfnGetRootDevice (1.7).
struct ze_device_dditable_1_7_t {
  ze_device_dditable_t v1_4;
  PFN_zeDeviceGetRootDevice pfnGetRootDevice;
};

// CommandList table: 1.4's 28 members (the 1.3 image-copy Ext pair the last), then
// pfnHostSynchronize (1.6).
struct ze_command_list_dditable_1_6_t {
  ze_command_list_dditable_t v1_4;
  PFN_zeCommandListHostSynchronize pfnHostSynchronize;
};

// Mem table: 1.4's ten members (pfnFreeExt, 1.3, the last), then pfnPutIpcHandle (1.6).
struct ze_mem_dditable_1_6_t {
  ze_mem_dditable_t v1_4;
  PFN_zeMemPutIpcHandle pfnPutIpcHandle;
};

// EventPool table: 1.4's five members, then pfnPutIpcHandle (1.6).
struct ze_event_pool_dditable_1_6_t {
  ze_event_pool_dditable_t v1_4;
  PFN_zeEventPoolPutIpcHandle pfnPutIpcHandle;
};

static_assert(sizeof(ze_global_dditable_t) == sizeof(void*), "1.4 Global table: pfnInit only");
static_assert(sizeof(ze_driver_dditable_t) == 6 * sizeof(void*), "1.4 Driver table: six members");
static_assert(sizeof(ze_device_dditable_t) == 18 * sizeof(void*), "1.4 Device table: 18 members");
static_assert(sizeof(ze_mem_dditable_t) == 10 * sizeof(void*), "1.4 Mem table: ten members");
static_assert(sizeof(ze_command_list_dditable_t) == 28 * sizeof(void*),
              "1.4 CommandList table: 28 members");
static_assert(sizeof(ze_event_pool_dditable_t) == 5 * sizeof(void*),
              "1.4 EventPool table: five members");

}  // namespace accel::abi::level_zero
