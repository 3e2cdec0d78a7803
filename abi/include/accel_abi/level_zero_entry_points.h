#pragma once
// Every Level Zero entry point this project names, one row each: the single list from which
// the runtime's backend takes what it resolves (ACCEL_ZE_REQUIRED_TABLE,
// ACCEL_ZE_OPTIONAL_TABLE in accel_abi/level_zero.h) and the mock driver takes what it
// serves (ACCEL_ZE_SERVED_TABLE: the names call faults and call counts accept, and the
// only names its entry points may count their calls under). Header-only and free of the
// Level Zero headers, so the mock's machine-file reader builds without libze-dev.
//
// Each row is ROW(F, kind, name, member, since): `member` is the entry point's pfn member in
// its dispatch table (the group the row is in; none outside a table) and `since` the spec
// version that added it there, as (major, minor); `kind` says who uses it:
//   B  both: the backend requires it (every loader since 1.8 exports it) and the mock serves it
//   R  the backend requires it, the mock does not serve it (zelLoaderGetVersions is the
//      loader's own and never reaches a driver)
//   O  optional for the backend (used only when dlsym finds it and the driver reports its
//      version: the Sysman 1.5 calls from loader 1.9, zeCommandListHostSynchronize 1.6 from
//      loader 1.10), served by the mock at its version
//   P  optional for the backend, not served (no row has this kind today)
//   M  the mock serves it, the backend does not call it (regular lists and queues, shared
//      memory, the remaining property queries the real clients and the driver's tests use)
// Rows newer than Debian's 1.4 headers (zeInitDrivers 1.10, zeDriverGetLastErrorDescription 1.6,
// zeDeviceGetRootDevice 1.7, zeMemPutIpcHandle, zeEventPoolPutIpcHandle and
// zeCommandListHostSynchronize 1.6) are written
// through the layouts of accel_abi/level_zero_core_newer.h, only for a loader that asks at their
// version.
// The rows are grouped by dispatch table (ACCEL_ZE_<TABLE>_ENTRY_POINTS), in the order of
// ACCEL_ZE_ENTRY_POINTS. A new entry point is one row in its table's group (and, for the
// mock, its implementation under the entry point's name beside that table's fill function:
// the mock's fill functions are generated from the groups, mockdev/src/level_zero/ze_tables.h).
//
// The derived tables below pass each selected row's name to a one-argument macro X(name), in
// this list's order (the backend names the first missing required entry point in that order);
// ACCEL_ZE_SERVED_ENTRIES passes a group's served rows to X(name, member, since).

// ze_global_dditable_t (zeGetGlobalProcAddrTable).
#define ACCEL_ZE_GLOBAL_ENTRY_POINTS(ROW, F) \
  ROW(F, B, zeInit, pfnInit, (1, 0))         \
  ROW(F, M, zeInitDrivers, pfnInitDrivers, (1, 10))

// ze_driver_dditable_t.
#define ACCEL_ZE_DRIVER_ENTRY_POINTS(ROW, F)                                             \
  ROW(F, B, zeDriverGet, pfnGet, (1, 0))                                                 \
  ROW(F, B, zeDriverGetApiVersion, pfnGetApiVersion, (1, 0))                             \
  ROW(F, B, zeDriverGetProperties, pfnGetProperties, (1, 0))                             \
  ROW(F, M, zeDriverGetExtensionProperties, pfnGetExtensionProperties, (1, 0))           \
  ROW(F, M, zeDriverGetExtensionFunctionAddress, pfnGetExtensionFunctionAddress, (1, 1)) \
  ROW(F, M, zeDriverGetIpcProperties, pfnGetIpcProperties, (1, 0))                       \
  ROW(F, M, zeDriverGetLastErrorDescription, pfnGetLastErrorDescription, (1, 6))

// ze_device_dditable_t.
#define ACCEL_ZE_DEVICE_ENTRY_POINTS(ROW, F)                                                   \
  ROW(F, B, zeDeviceGet, pfnGet, (1, 0))                                                       \
  ROW(F, B, zeDeviceGetSubDevices, pfnGetSubDevices, (1, 0))                                   \
  ROW(F, B, zeDeviceGetProperties, pfnGetProperties, (1, 0))                                   \
  ROW(F, B, zeDeviceGetComputeProperties, pfnGetComputeProperties, (1, 0))                     \
  ROW(F, B, zeDeviceGetModuleProperties, pfnGetModuleProperties, (1, 0))                       \
  ROW(F, B, zeDeviceGetMemoryProperties, pfnGetMemoryProperties, (1, 0))                       \
  ROW(F, B, zeDeviceGetCommandQueueGroupProperties, pfnGetCommandQueueGroupProperties, (1, 0)) \
  ROW(F, M, zeDeviceGetCacheProperties, pfnGetCacheProperties, (1, 0))                         \
  ROW(F, M, zeDeviceGetMemoryAccessProperties, pfnGetMemoryAccessProperties, (1, 0))           \
  ROW(F, B, zeDeviceGetP2PProperties, pfnGetP2PProperties, (1, 0))                             \
  ROW(F, M, zeDeviceGetStatus, pfnGetStatus, (1, 0))                                           \
  ROW(F, M, zeDeviceGetImageProperties, pfnGetImageProperties, (1, 0))                         \
  ROW(F, M, zeDeviceGetExternalMemoryProperties, pfnGetExternalMemoryProperties, (1, 0))       \
  ROW(F, B, zeDeviceCanAccessPeer, pfnCanAccessPeer, (1, 0))                                   \
  ROW(F, B, zeDeviceGetGlobalTimestamps, pfnGetGlobalTimestamps, (1, 1))                       \
  ROW(F, M, zeDeviceGetRootDevice, pfnGetRootDevice, (1, 7))

// ze_context_dditable_t.
#define ACCEL_ZE_CONTEXT_ENTRY_POINTS(ROW, F)                           \
  ROW(F, B, zeContextCreate, pfnCreate, (1, 0))                         \
  ROW(F, B, zeContextDestroy, pfnDestroy, (1, 0))                       \
  ROW(F, M, zeContextGetStatus, pfnGetStatus, (1, 0))                   \
  ROW(F, M, zeContextMakeMemoryResident, pfnMakeMemoryResident, (1, 0)) \
  ROW(F, M, zeContextEvictMemory, pfnEvictMemory, (1, 0))               \
  ROW(F, M, zeContextCreateEx, pfnCreateEx, (1, 1))

// ze_mem_dditable_t.
#define ACCEL_ZE_MEM_ENTRY_POINTS(ROW, F)                           \
  ROW(F, B, zeMemAllocDevice, pfnAllocDevice, (1, 0))               \
  ROW(F, B, zeMemAllocHost, pfnAllocHost, (1, 0))                   \
  ROW(F, M, zeMemAllocShared, pfnAllocShared, (1, 0))               \
  ROW(F, B, zeMemFree, pfnFree, (1, 0))                             \
  ROW(F, B, zeMemGetAllocProperties, pfnGetAllocProperties, (1, 0)) \
  ROW(F, B, zeMemGetAddressRange, pfnGetAddressRange, (1, 0))       \
  ROW(F, M, zeMemGetIpcHandle, pfnGetIpcHandle, (1, 0))             \
  ROW(F, M, zeMemOpenIpcHandle, pfnOpenIpcHandle, (1, 0))           \
  ROW(F, M, zeMemCloseIpcHandle, pfnCloseIpcHandle, (1, 0))         \
  ROW(F, M, zeMemPutIpcHandle, pfnPutIpcHandle, (1, 6))

// ze_virtual_mem_dditable_t.
#define ACCEL_ZE_VIRTUAL_MEM_ENTRY_POINTS(ROW, F)                          \
  ROW(F, B, zeVirtualMemQueryPageSize, pfnQueryPageSize, (1, 0))           \
  ROW(F, B, zeVirtualMemReserve, pfnReserve, (1, 0))                       \
  ROW(F, B, zeVirtualMemFree, pfnFree, (1, 0))                             \
  ROW(F, B, zeVirtualMemMap, pfnMap, (1, 0))                               \
  ROW(F, B, zeVirtualMemUnmap, pfnUnmap, (1, 0))                           \
  ROW(F, B, zeVirtualMemSetAccessAttribute, pfnSetAccessAttribute, (1, 0)) \
  ROW(F, M, zeVirtualMemGetAccessAttribute, pfnGetAccessAttribute, (1, 0))

// ze_physical_mem_dditable_t.
#define ACCEL_ZE_PHYSICAL_MEM_ENTRY_POINTS(ROW, F)  \
  ROW(F, B, zePhysicalMemCreate, pfnCreate, (1, 0)) \
  ROW(F, B, zePhysicalMemDestroy, pfnDestroy, (1, 0))

// ze_command_queue_dditable_t.
#define ACCEL_ZE_COMMAND_QUEUE_ENTRY_POINTS(ROW, F)                            \
  ROW(F, M, zeCommandQueueCreate, pfnCreate, (1, 0))                           \
  ROW(F, M, zeCommandQueueDestroy, pfnDestroy, (1, 0))                         \
  ROW(F, M, zeCommandQueueExecuteCommandLists, pfnExecuteCommandLists, (1, 0)) \
  ROW(F, M, zeCommandQueueSynchronize, pfnSynchronize, (1, 0))

// ze_command_list_dditable_t.
#define ACCEL_ZE_COMMAND_LIST_ENTRY_POINTS(ROW, F)                                            \
  ROW(F, M, zeCommandListCreate, pfnCreate, (1, 0))                                           \
  ROW(F, B, zeCommandListCreateImmediate, pfnCreateImmediate, (1, 0))                         \
  ROW(F, B, zeCommandListDestroy, pfnDestroy, (1, 0))                                         \
  ROW(F, M, zeCommandListClose, pfnClose, (1, 0))                                             \
  ROW(F, M, zeCommandListReset, pfnReset, (1, 0))                                             \
  ROW(F, B, zeCommandListAppendMemoryCopy, pfnAppendMemoryCopy, (1, 0))                       \
  ROW(F, B, zeCommandListAppendMemoryFill, pfnAppendMemoryFill, (1, 0))                       \
  ROW(F, B, zeCommandListAppendBarrier, pfnAppendBarrier, (1, 0))                             \
  ROW(F, B, zeCommandListAppendSignalEvent, pfnAppendSignalEvent, (1, 0))                     \
  ROW(F, B, zeCommandListAppendWaitOnEvents, pfnAppendWaitOnEvents, (1, 0))                   \
  ROW(F, B, zeCommandListAppendEventReset, pfnAppendEventReset, (1, 0))                       \
  ROW(F, M, zeCommandListAppendWriteGlobalTimestamp, pfnAppendWriteGlobalTimestamp, (1, 0))   \
  ROW(F, M, zeCommandListAppendMemoryRangesBarrier, pfnAppendMemoryRangesBarrier, (1, 0))     \
  ROW(F, M, zeCommandListAppendMemoryCopyRegion, pfnAppendMemoryCopyRegion, (1, 0))           \
  ROW(F, M, zeCommandListAppendMemoryCopyFromContext, pfnAppendMemoryCopyFromContext, (1, 0)) \
  ROW(F, M, zeCommandListAppendMemoryPrefetch, pfnAppendMemoryPrefetch, (1, 0))               \
  ROW(F, M, zeCommandListAppendMemAdvise, pfnAppendMemAdvise, (1, 0))                         \
  ROW(F, M, zeCommandListAppendQueryKernelTimestamps, pfnAppendQueryKernelTimestamps, (1, 0)) \
  ROW(F, M, zeCommandListAppendLaunchKernel, pfnAppendLaunchKernel, (1, 0))                   \
  ROW(F, M, zeCommandListAppendLaunchKernelIndirect, pfnAppendLaunchKernelIndirect, (1, 0))   \
  ROW(F, M, zeCommandListAppendLaunchMultipleKernelsIndirect,                                 \
      pfnAppendLaunchMultipleKernelsIndirect, (1, 0))                                         \
  ROW(F, O, zeCommandListHostSynchronize, pfnHostSynchronize, (1, 6))

// ze_fence_dditable_t (fences of command queues).
#define ACCEL_ZE_FENCE_ENTRY_POINTS(ROW, F)                     \
  ROW(F, M, zeFenceCreate, pfnCreate, (1, 0))                   \
  ROW(F, M, zeFenceDestroy, pfnDestroy, (1, 0))                 \
  ROW(F, M, zeFenceHostSynchronize, pfnHostSynchronize, (1, 0)) \
  ROW(F, M, zeFenceQueryStatus, pfnQueryStatus, (1, 0))         \
  ROW(F, M, zeFenceReset, pfnReset, (1, 0))

// ze_module_dditable_t (modules from SPIR-V; no dynamic linking, no native binaries).
#define ACCEL_ZE_MODULE_ENTRY_POINTS(ROW, F)                       \
  ROW(F, M, zeModuleCreate, pfnCreate, (1, 0))                     \
  ROW(F, M, zeModuleDestroy, pfnDestroy, (1, 0))                   \
  ROW(F, M, zeModuleGetGlobalPointer, pfnGetGlobalPointer, (1, 0)) \
  ROW(F, M, zeModuleGetKernelNames, pfnGetKernelNames, (1, 0))     \
  ROW(F, M, zeModuleGetProperties, pfnGetProperties, (1, 0))

// ze_module_build_log_dditable_t.
#define ACCEL_ZE_MODULE_BUILD_LOG_ENTRY_POINTS(ROW, F)   \
  ROW(F, M, zeModuleBuildLogDestroy, pfnDestroy, (1, 0)) \
  ROW(F, M, zeModuleBuildLogGetString, pfnGetString, (1, 0))

// ze_kernel_dditable_t.
#define ACCEL_ZE_KERNEL_ENTRY_POINTS(ROW, F)                         \
  ROW(F, M, zeKernelCreate, pfnCreate, (1, 0))                       \
  ROW(F, M, zeKernelDestroy, pfnDestroy, (1, 0))                     \
  ROW(F, M, zeKernelSetGroupSize, pfnSetGroupSize, (1, 0))           \
  ROW(F, M, zeKernelSuggestGroupSize, pfnSuggestGroupSize, (1, 0))   \
  ROW(F, M, zeKernelSetArgumentValue, pfnSetArgumentValue, (1, 0))   \
  ROW(F, M, zeKernelSetIndirectAccess, pfnSetIndirectAccess, (1, 0)) \
  ROW(F, M, zeKernelGetIndirectAccess, pfnGetIndirectAccess, (1, 0)) \
  ROW(F, M, zeKernelGetProperties, pfnGetProperties, (1, 0))         \
  ROW(F, M, zeKernelGetName, pfnGetName, (1, 0))

// ze_event_pool_dditable_t.
#define ACCEL_ZE_EVENT_POOL_ENTRY_POINTS(ROW, F)                  \
  ROW(F, B, zeEventPoolCreate, pfnCreate, (1, 0))                 \
  ROW(F, B, zeEventPoolDestroy, pfnDestroy, (1, 0))               \
  ROW(F, M, zeEventPoolGetIpcHandle, pfnGetIpcHandle, (1, 0))     \
  ROW(F, M, zeEventPoolOpenIpcHandle, pfnOpenIpcHandle, (1, 0))   \
  ROW(F, M, zeEventPoolCloseIpcHandle, pfnCloseIpcHandle, (1, 0)) \
  ROW(F, M, zeEventPoolPutIpcHandle, pfnPutIpcHandle, (1, 6))

// ze_event_dditable_t.
#define ACCEL_ZE_EVENT_ENTRY_POINTS(ROW, F)                     \
  ROW(F, B, zeEventCreate, pfnCreate, (1, 0))                   \
  ROW(F, B, zeEventDestroy, pfnDestroy, (1, 0))                 \
  ROW(F, B, zeEventHostSynchronize, pfnHostSynchronize, (1, 0)) \
  ROW(F, B, zeEventQueryStatus, pfnQueryStatus, (1, 0))         \
  ROW(F, B, zeEventHostReset, pfnHostReset, (1, 0))             \
  ROW(F, B, zeEventHostSignal, pfnHostSignal, (1, 0))           \
  ROW(F, B, zeEventQueryKernelTimestamp, pfnQueryKernelTimestamp, (1, 0))

// zes Global table (new in 1.5: zes_global_dditable_1_5_t).
#define ACCEL_ZE_SYSMAN_GLOBAL_ENTRY_POINTS(ROW, F) ROW(F, O, zesInit, pfnInit, (1, 5))

// zes_driver_dditable_t (pfnGet: the 1.5 layout).
#define ACCEL_ZE_SYSMAN_DRIVER_ENTRY_POINTS(ROW, F) ROW(F, O, zesDriverGet, pfnGet, (1, 5))

// zes_device_dditable_t (pfnGet: the 1.5 layout).
#define ACCEL_ZE_SYSMAN_DEVICE_ENTRY_POINTS(ROW, F)           \
  ROW(F, O, zesDeviceGet, pfnGet, (1, 5))                     \
  ROW(F, B, zesDeviceGetProperties, pfnGetProperties, (1, 0)) \
  ROW(F, B, zesDeviceEnumMemoryModules, pfnEnumMemoryModules, (1, 0))

// zes_memory_dditable_t.
#define ACCEL_ZE_SYSMAN_MEMORY_ENTRY_POINTS(ROW, F)           \
  ROW(F, B, zesMemoryGetProperties, pfnGetProperties, (1, 0)) \
  ROW(F, B, zesMemoryGetState, pfnGetState, (1, 0))

// in no table the mock fills: the loader's own entry point.
#define ACCEL_ZE_UNSERVED_ENTRY_POINTS(ROW, F) ROW(F, R, zelLoaderGetVersions, none, none)

// Every row, in this order.
#define ACCEL_ZE_ENTRY_POINTS(ROW, F)            \
  ACCEL_ZE_GLOBAL_ENTRY_POINTS(ROW, F)           \
  ACCEL_ZE_DRIVER_ENTRY_POINTS(ROW, F)           \
  ACCEL_ZE_DEVICE_ENTRY_POINTS(ROW, F)           \
  ACCEL_ZE_CONTEXT_ENTRY_POINTS(ROW, F)          \
  ACCEL_ZE_MEM_ENTRY_POINTS(ROW, F)              \
  ACCEL_ZE_VIRTUAL_MEM_ENTRY_POINTS(ROW, F)      \
  ACCEL_ZE_PHYSICAL_MEM_ENTRY_POINTS(ROW, F)     \
  ACCEL_ZE_COMMAND_QUEUE_ENTRY_POINTS(ROW, F)    \
  ACCEL_ZE_COMMAND_LIST_ENTRY_POINTS(ROW, F)     \
  ACCEL_ZE_FENCE_ENTRY_POINTS(ROW, F)            \
  ACCEL_ZE_MODULE_ENTRY_POINTS(ROW, F)           \
  ACCEL_ZE_MODULE_BUILD_LOG_ENTRY_POINTS(ROW, F) \
  ACCEL_ZE_KERNEL_ENTRY_POINTS(ROW, F)           \
  ACCEL_ZE_EVENT_POOL_ENTRY_POINTS(ROW, F)       \
  ACCEL_ZE_EVENT_ENTRY_POINTS(ROW, F)            \
  ACCEL_ZE_SYSMAN_GLOBAL_ENTRY_POINTS(ROW, F)    \
  ACCEL_ZE_SYSMAN_DRIVER_ENTRY_POINTS(ROW, F)    \
  ACCEL_ZE_SYSMAN_DEVICE_ENTRY_POINTS(ROW, F)    \
  ACCEL_ZE_SYSMAN_MEMORY_ENTRY_POINTS(ROW, F)    \
  ACCEL_ZE_UNSERVED_ENTRY_POINTS(ROW, F)

// The selections: one macro per kind and selection, expanding to X(name) or to nothing.
#define ACCEL_ZE_ROW_REQUIRED(X, kind, name, ...) ACCEL_ZE_REQUIRED_##kind(X, name)
#define ACCEL_ZE_REQUIRED_B(X, name) X(name)
#define ACCEL_ZE_REQUIRED_R(X, name) X(name)
#define ACCEL_ZE_REQUIRED_O(X, name)
#define ACCEL_ZE_REQUIRED_P(X, name)
#define ACCEL_ZE_REQUIRED_M(X, name)

#define ACCEL_ZE_ROW_OPTIONAL(X, kind, name, ...) ACCEL_ZE_OPTIONAL_##kind(X, name)
#define ACCEL_ZE_OPTIONAL_B(X, name)
#define ACCEL_ZE_OPTIONAL_R(X, name)
#define ACCEL_ZE_OPTIONAL_O(X, name) X(name)
#define ACCEL_ZE_OPTIONAL_P(X, name) X(name)
#define ACCEL_ZE_OPTIONAL_M(X, name)

#define ACCEL_ZE_ROW_SERVED(X, kind, name, ...) ACCEL_ZE_SERVED_##kind(X, name)
#define ACCEL_ZE_SERVED_B(X, name) X(name)
#define ACCEL_ZE_SERVED_R(X, name)
#define ACCEL_ZE_SERVED_O(X, name) X(name)
#define ACCEL_ZE_SERVED_P(X, name)
#define ACCEL_ZE_SERVED_M(X, name) X(name)

#define ACCEL_ZE_ROW_SERVED_ENTRY(X, kind, name, member, since) \
  ACCEL_ZE_SERVED_ENTRY_##kind(X, name, member, since)
#define ACCEL_ZE_SERVED_ENTRY_B(X, name, member, since) X(name, member, since)
#define ACCEL_ZE_SERVED_ENTRY_R(X, name, member, since)
#define ACCEL_ZE_SERVED_ENTRY_O(X, name, member, since) X(name, member, since)
#define ACCEL_ZE_SERVED_ENTRY_P(X, name, member, since)
#define ACCEL_ZE_SERVED_ENTRY_M(X, name, member, since) X(name, member, since)

// X(name): what every loader the backend accepts exports (kinds B, R).
#define ACCEL_ZE_REQUIRED_NAMES(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_REQUIRED, X)
// X(name): what the backend uses only when present (kinds O, P).
#define ACCEL_ZE_OPTIONAL_NAMES(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_OPTIONAL, X)
// X(name): what the mock driver serves through its dispatch tables (kinds B, O, M).
#define ACCEL_ZE_SERVED_TABLE(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_SERVED, X)
// X(name, member, since): the rows of one table's group (GROUP, e.g.
// ACCEL_ZE_MEM_ENTRY_POINTS) that the mock serves, for the mock's fill functions.
#define ACCEL_ZE_SERVED_ENTRIES(GROUP, X) GROUP(ACCEL_ZE_ROW_SERVED_ENTRY, X)
