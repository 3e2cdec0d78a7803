#pragma once
// Every Level Zero entry point this project names, one row each: the single list from which
// the runtime's backend takes what it resolves (ACCEL_ZE_REQUIRED_TABLE,
// ACCEL_ZE_OPTIONAL_TABLE in accel_abi/level_zero.h) and the mock driver takes what it
// serves (ACCEL_ZE_SERVED_TABLE: the names call faults and call counts accept, and the
// only names its entry points may count their calls under). Header-only and free of the
// Level Zero headers, so the mock's machine-file reader builds without libze-dev.
//
// Each row is ROW(F, kind, name), `kind` saying who uses it:
//   B  both: the backend requires it (every loader since 1.8 exports it) and the mock serves it
//   R  the backend requires it, the mock does not serve it (zelLoaderGetVersions is the
//      loader's own and never reaches a driver)
//   O  optional for the backend (loader 1.9 / spec 1.5: used only when dlsym finds it and the
//      driver reports its version), served by the mock at 1.5
//   P  optional for the backend, not served (zeCommandListHostSynchronize is spec 1.6; the
//      mock serves the 1.4 tables)
//   M  the mock serves it, the backend does not call it (regular lists and queues, shared
//      memory, the remaining property queries the real clients and the driver's tests use)
// Not served, so refused in a fault: zeDeviceGetRootDevice (spec 1.7),
// zeDeviceGetImageProperties, zeDeviceGetExternalMemoryProperties, the IPC handle calls.
// A new entry point is one row here (and, for the mock, its table entry in the fill function
// of its dispatch table, mockdev/src/level_zero/ze_tables.h).
//
// The derived tables below pass each selected row's name to a one-argument macro X(name), in
// this list's order (the backend names the first missing required entry point in that order).

#define ACCEL_ZE_ENTRY_POINTS(ROW, F)             \
  ROW(F, B, zeInit)                               \
  ROW(F, B, zeDriverGet)                          \
  ROW(F, B, zeDriverGetApiVersion)                \
  ROW(F, B, zeDriverGetProperties)                \
  ROW(F, M, zeDriverGetExtensionProperties)       \
  ROW(F, M, zeDriverGetExtensionFunctionAddress)  \
  ROW(F, M, zeDriverGetIpcProperties)             \
  ROW(F, B, zeDeviceGet)                          \
  ROW(F, B, zeDeviceGetSubDevices)                \
  ROW(F, B, zeDeviceGetProperties)                \
  ROW(F, B, zeDeviceGetComputeProperties)         \
  ROW(F, B, zeDeviceGetModuleProperties)          \
  ROW(F, B, zeDeviceGetMemoryProperties)          \
  ROW(F, B, zeDeviceGetCommandQueueGroupProperties) \
  ROW(F, M, zeDeviceGetCacheProperties)           \
  ROW(F, M, zeDeviceGetMemoryAccessProperties)    \
  ROW(F, M, zeDeviceGetP2PProperties)             \
  ROW(F, M, zeDeviceGetStatus)                    \
  ROW(F, B, zeDeviceCanAccessPeer)                \
  ROW(F, B, zeDeviceGetGlobalTimestamps)          \
  ROW(F, B, zeContextCreate)                      \
  ROW(F, B, zeContextDestroy)                     \
  ROW(F, M, zeContextGetStatus)                   \
  ROW(F, B, zeMemAllocDevice)                     \
  ROW(F, B, zeMemAllocHost)                       \
  ROW(F, M, zeMemAllocShared)                     \
  ROW(F, B, zeMemFree)                            \
  ROW(F, B, zeMemGetAllocProperties)              \
  ROW(F, B, zeMemGetAddressRange)                 \
  ROW(F, B, zeVirtualMemQueryPageSize)            \
  ROW(F, B, zeVirtualMemReserve)                  \
  ROW(F, B, zeVirtualMemFree)                     \
  ROW(F, B, zeVirtualMemMap)                      \
  ROW(F, B, zeVirtualMemUnmap)                    \
  ROW(F, B, zeVirtualMemSetAccessAttribute)       \
  ROW(F, M, zeVirtualMemGetAccessAttribute)       \
  ROW(F, B, zePhysicalMemCreate)                  \
  ROW(F, B, zePhysicalMemDestroy)                 \
  ROW(F, M, zeCommandQueueCreate)                 \
  ROW(F, M, zeCommandQueueDestroy)                \
  ROW(F, M, zeCommandQueueExecuteCommandLists)    \
  ROW(F, M, zeCommandQueueSynchronize)            \
  ROW(F, M, zeCommandListCreate)                  \
  ROW(F, B, zeCommandListCreateImmediate)         \
  ROW(F, B, zeCommandListDestroy)                 \
  ROW(F, M, zeCommandListClose)                   \
  ROW(F, M, zeCommandListReset)                   \
  ROW(F, B, zeCommandListAppendMemoryCopy)        \
  ROW(F, B, zeCommandListAppendMemoryFill)        \
  ROW(F, B, zeCommandListAppendBarrier)           \
  ROW(F, B, zeCommandListAppendSignalEvent)       \
  ROW(F, B, zeCommandListAppendWaitOnEvents)      \
  ROW(F, B, zeCommandListAppendEventReset)        \
  ROW(F, M, zeCommandListAppendWriteGlobalTimestamp) \
  ROW(F, B, zeEventPoolCreate)                    \
  ROW(F, B, zeEventPoolDestroy)                   \
  ROW(F, B, zeEventCreate)                        \
  ROW(F, B, zeEventDestroy)                       \
  ROW(F, B, zeEventHostSynchronize)               \
  ROW(F, B, zeEventQueryStatus)                   \
  ROW(F, B, zeEventHostReset)                     \
  ROW(F, B, zeEventHostSignal)                    \
  ROW(F, B, zeEventQueryKernelTimestamp)          \
  ROW(F, O, zesInit)                              \
  ROW(F, O, zesDriverGet)                         \
  ROW(F, O, zesDeviceGet)                         \
  ROW(F, B, zesDeviceGetProperties)               \
  ROW(F, B, zesDeviceEnumMemoryModules)           \
  ROW(F, B, zesMemoryGetProperties)               \
  ROW(F, B, zesMemoryGetState)                    \
  ROW(F, R, zelLoaderGetVersions)                 \
  ROW(F, P, zeCommandListHostSynchronize)

// The selections: one macro per kind and selection, expanding to X(name) or to nothing.
#define ACCEL_ZE_ROW_REQUIRED(X, kind, name) ACCEL_ZE_REQUIRED_##kind(X, name)
#define ACCEL_ZE_REQUIRED_B(X, name) X(name)
#define ACCEL_ZE_REQUIRED_R(X, name) X(name)
#define ACCEL_ZE_REQUIRED_O(X, name)
#define ACCEL_ZE_REQUIRED_P(X, name)
#define ACCEL_ZE_REQUIRED_M(X, name)

#define ACCEL_ZE_ROW_OPTIONAL(X, kind, name) ACCEL_ZE_OPTIONAL_##kind(X, name)
#define ACCEL_ZE_OPTIONAL_B(X, name)
#define ACCEL_ZE_OPTIONAL_R(X, name)
#define ACCEL_ZE_OPTIONAL_O(X, name) X(name)
#define ACCEL_ZE_OPTIONAL_P(X, name) X(name)
#define ACCEL_ZE_OPTIONAL_M(X, name)

#define ACCEL_ZE_ROW_SERVED(X, kind, name) ACCEL_ZE_SERVED_##kind(X, name)
#define ACCEL_ZE_SERVED_B(X, name) X(name)
#define ACCEL_ZE_SERVED_R(X, name)
#define ACCEL_ZE_SERVED_O(X, name) X(name)
#define ACCEL_ZE_SERVED_P(X, name)
#define ACCEL_ZE_SERVED_M(X, name) X(name)

// X(name): what every loader the backend accepts exports (kinds B, R).
#define ACCEL_ZE_REQUIRED_NAMES(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_REQUIRED, X)
// X(name): what the backend uses only when present (kinds O, P).
#define ACCEL_ZE_OPTIONAL_NAMES(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_OPTIONAL, X)
// X(name): what the mock driver serves through its dispatch tables (kinds B, O, M).
#define ACCEL_ZE_SERVED_TABLE(X) ACCEL_ZE_ENTRY_POINTS(ACCEL_ZE_ROW_SERVED, X)
