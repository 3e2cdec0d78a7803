#pragma once
// The ze_result_t codes a machine file may name for Level Zero faults (faults.level_zero_init,
// call faults and sticky errors of api level_zero): those of the Level Zero headers up to
// 1.17. Written out here rather than taken from the loader's headers so the adapter's
// registration (registration.cpp), and with it the machine-file reader, builds without
// them, and so codes newer than the 1.4 headers (ZE_RESULT_ERROR_ADDRESS_NOT_FOUND, 1.14)
// can be scheduled too: a backend built against old headers must still print them.
// The entry points the mock serves are ACCEL_ZE_SERVED_TABLE, selected from the one list of
// Level Zero entry points (accel_abi/level_zero_entry_points.h).

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
