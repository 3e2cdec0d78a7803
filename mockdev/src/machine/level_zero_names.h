#pragma once
// The names a machine file may use for Level Zero faults: the ze_result_t codes of the Level
// Zero headers up to 1.17 (faults.level_zero_init, call faults and sticky errors of api
// level_zero) and the ze*/zes* entry points the mock driver serves (call faults count calls
// by these names: core::count_call, Note [Level Zero call order]). Written out here rather
// than taken from the loader's headers so the machine-file reader builds without them, and
// so codes newer than the 1.4 headers (ZE_RESULT_ERROR_ADDRESS_NOT_FOUND, 1.14) can be
// scheduled too: a backend built against old headers must still print them.

// X(name, value): every ze_result_t a fault may name, including codes that no entry point
// of the mock returns by itself.
#define MOCKDEV_ZE_RESULTS(X)                                 \
  X(ZE_RESULT_SUCCESS, 0x0)                                   \
  X(ZE_RESULT_NOT_READY, 0x1)                                 \
  X(ZE_RESULT_ERROR_DEVICE_LOST, 0x70000001)                  \
  X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, 0x70000002)           \
  X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, 0x70000003)         \
  X(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET, 0x70000006)        \
  X(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE, 0x70000007)    \
  X(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, 0x70010000)     \
  X(ZE_RESULT_ERROR_NOT_AVAILABLE, 0x70010001)                \
  X(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE, 0x70020000)       \
  X(ZE_RESULT_ERROR_UNINITIALIZED, 0x78000001)                \
  X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION, 0x78000002)          \
  X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, 0x78000003)          \
  X(ZE_RESULT_ERROR_INVALID_ARGUMENT, 0x78000004)             \
  X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, 0x78000005)          \
  X(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, 0x78000006)         \
  X(ZE_RESULT_ERROR_INVALID_NULL_POINTER, 0x78000007)         \
  X(ZE_RESULT_ERROR_INVALID_SIZE, 0x78000008)                 \
  X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, 0x78000009)             \
  X(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, 0x7800000a)        \
  X(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, 0x7800000b) \
  X(ZE_RESULT_ERROR_INVALID_ENUMERATION, 0x7800000c)          \
  X(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION, 0x7800000d)      \
  X(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, 0x78000019)    \
  X(ZE_RESULT_ERROR_OVERLAPPING_REGIONS, 0x7800001a)          \
  X(ZE_RESULT_ERROR_ADDRESS_NOT_FOUND, 0x78000021)            \
  X(ZE_RESULT_ERROR_UNKNOWN, 0x7ffffffe)

// X(name): the entry points the mock driver serves through its tables (each counts its
// calls under this name): every driver entry point of accel_abi/level_zero.h but two
// (zelLoaderGetVersions is the loader's own and never reaches a driver;
// zeCommandListHostSynchronize is spec 1.6, and the mock serves the 1.4 tables), plus what
// the real clients and the driver's tests call (regular lists and queues, shared memory,
// the remaining property queries). Not served, so not accepted in a fault:
// zeDeviceGetRootDevice (spec 1.7), zeDeviceGetImageProperties,
// zeDeviceGetExternalMemoryProperties, the IPC handle calls. A new entry point of the
// driver adds its row here.
#define MOCKDEV_ZE_ENTRY_POINTS(X)             \
  X(zeInit)                                    \
  X(zeDriverGet)                               \
  X(zeDriverGetApiVersion)                     \
  X(zeDriverGetProperties)                     \
  X(zeDriverGetExtensionProperties)            \
  X(zeDriverGetExtensionFunctionAddress)       \
  X(zeDriverGetIpcProperties)                  \
  X(zeDeviceGet)                               \
  X(zeDeviceGetSubDevices)                     \
  X(zeDeviceGetProperties)                     \
  X(zeDeviceGetComputeProperties)              \
  X(zeDeviceGetModuleProperties)               \
  X(zeDeviceGetMemoryProperties)               \
  X(zeDeviceGetCommandQueueGroupProperties)    \
  X(zeDeviceGetCacheProperties)                \
  X(zeDeviceGetMemoryAccessProperties)         \
  X(zeDeviceGetP2PProperties)                  \
  X(zeDeviceGetStatus)                         \
  X(zeDeviceCanAccessPeer)                     \
  X(zeDeviceGetGlobalTimestamps)               \
  X(zeContextCreate)                           \
  X(zeContextDestroy)                          \
  X(zeContextGetStatus)                        \
  X(zeMemAllocDevice)                          \
  X(zeMemAllocHost)                            \
  X(zeMemAllocShared)                          \
  X(zeMemFree)                                 \
  X(zeMemGetAllocProperties)                   \
  X(zeMemGetAddressRange)                      \
  X(zeVirtualMemQueryPageSize)                 \
  X(zeVirtualMemReserve)                       \
  X(zeVirtualMemFree)                          \
  X(zeVirtualMemMap)                           \
  X(zeVirtualMemUnmap)                         \
  X(zeVirtualMemSetAccessAttribute)            \
  X(zeVirtualMemGetAccessAttribute)            \
  X(zePhysicalMemCreate)                       \
  X(zePhysicalMemDestroy)                      \
  X(zeCommandQueueCreate)                      \
  X(zeCommandQueueDestroy)                     \
  X(zeCommandQueueExecuteCommandLists)         \
  X(zeCommandQueueSynchronize)                 \
  X(zeCommandListCreate)                       \
  X(zeCommandListCreateImmediate)              \
  X(zeCommandListDestroy)                      \
  X(zeCommandListClose)                        \
  X(zeCommandListReset)                        \
  X(zeCommandListAppendMemoryCopy)             \
  X(zeCommandListAppendMemoryFill)             \
  X(zeCommandListAppendBarrier)                \
  X(zeCommandListAppendSignalEvent)            \
  X(zeCommandListAppendWaitOnEvents)           \
  X(zeCommandListAppendEventReset)             \
  X(zeCommandListAppendWriteGlobalTimestamp)   \
  X(zeEventPoolCreate)                         \
  X(zeEventPoolDestroy)                        \
  X(zeEventCreate)                             \
  X(zeEventDestroy)                            \
  X(zeEventHostSynchronize)                    \
  X(zeEventQueryStatus)                        \
  X(zeEventHostReset)                          \
  X(zeEventHostSignal)                         \
  X(zeEventQueryKernelTimestamp)               \
  X(zesInit)                                   \
  X(zesDriverGet)                              \
  X(zesDeviceGet)                              \
  X(zesDeviceGetProperties)                    \
  X(zesDeviceEnumMemoryModules)                \
  X(zesMemoryGetProperties)                    \
  X(zesMemoryGetState)
