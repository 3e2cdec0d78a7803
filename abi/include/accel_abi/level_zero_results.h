#pragma once
// The ze_result_t codes by name and value, one table for every component that prints or reads
// them: the runtime's Level Zero backend (its error messages), the simulated driver (machine
// files name codes for faults; its last-error descriptions), the Level Zero driver conformance
// suite and the client program. Spelt out rather than taken from the loader's headers so that
// a component built without them (the mock's machine-file reader) has them too; the runtime's
// backend, which is built with them, checks every value of ACCEL_ZE_RESULTS_1_4 against the
// headers' own enumerator (ze_status.cpp), so no value can drift.

#include <cstdint>

// X(name, value): every ze_result_t of the Level Zero 1.4 headers (ze_api.h), but the
// enumeration's ZE_RESULT_FORCE_UINT32 sentinel.
#define ACCEL_ZE_RESULTS_1_4(X)                                 \
  X(ZE_RESULT_SUCCESS, 0x0)                                     \
  X(ZE_RESULT_NOT_READY, 0x1)                                   \
  X(ZE_RESULT_ERROR_DEVICE_LOST, 0x70000001)                    \
  X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, 0x70000002)             \
  X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, 0x70000003)           \
  X(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, 0x70000004)           \
  X(ZE_RESULT_ERROR_MODULE_LINK_FAILURE, 0x70000005)            \
  X(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET, 0x70000006)          \
  X(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE, 0x70000007)      \
  X(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX, 0x7ff00001)       \
  X(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE, 0x7ff00002)       \
  X(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE, 0x7ff00003)              \
  X(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS, 0x70010000)       \
  X(ZE_RESULT_ERROR_NOT_AVAILABLE, 0x70010001)                  \
  X(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE, 0x70020000)         \
  X(ZE_RESULT_WARNING_DROPPED_DATA, 0x70020001)                 \
  X(ZE_RESULT_ERROR_UNINITIALIZED, 0x78000001)                  \
  X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION, 0x78000002)            \
  X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE, 0x78000003)            \
  X(ZE_RESULT_ERROR_INVALID_ARGUMENT, 0x78000004)               \
  X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE, 0x78000005)            \
  X(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE, 0x78000006)           \
  X(ZE_RESULT_ERROR_INVALID_NULL_POINTER, 0x78000007)           \
  X(ZE_RESULT_ERROR_INVALID_SIZE, 0x78000008)                   \
  X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE, 0x78000009)               \
  X(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT, 0x7800000a)          \
  X(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, 0x7800000b) \
  X(ZE_RESULT_ERROR_INVALID_ENUMERATION, 0x7800000c)            \
  X(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION, 0x7800000d)        \
  X(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT, 0x7800000e)       \
  X(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, 0x7800000f)          \
  X(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME, 0x78000010)            \
  X(ZE_RESULT_ERROR_INVALID_KERNEL_NAME, 0x78000011)            \
  X(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME, 0x78000012)          \
  X(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION, 0x78000013)   \
  X(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION, 0x78000014) \
  X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX, 0x78000015)  \
  X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, 0x78000016)   \
  X(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE, 0x78000017) \
  X(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED, 0x78000018)        \
  X(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE, 0x78000019)      \
  X(ZE_RESULT_ERROR_OVERLAPPING_REGIONS, 0x7800001a)            \
  X(ZE_RESULT_WARNING_ACTION_REQUIRED, 0x7800001b)              \
  X(ZE_RESULT_ERROR_UNKNOWN, 0x7ffffffe)

// X(name, value): codes of later specifications, which a driver newer than the 1.4 headers may
// return: ZE_RESULT_ERROR_ADDRESS_NOT_FOUND (1.14).
#define ACCEL_ZE_RESULTS_AFTER_1_4(X) X(ZE_RESULT_ERROR_ADDRESS_NOT_FOUND, 0x78000021)

#define ACCEL_ZE_RESULTS(X) ACCEL_ZE_RESULTS_1_4(X) ACCEL_ZE_RESULTS_AFTER_1_4(X)

namespace accel::abi::level_zero {

#define ACCEL_ZE_RESULT_CASE(name, value) \
  case value:                             \
    return #name;

// "ZE_RESULT_ERROR_DEVICE_LOST" for 0x70000001: the name of a code of the 1.4 headers, or
// nullptr (a component built against those headers names no code they lack).
constexpr const char* ze_result_name_1_4(std::uint32_t code) noexcept {
  switch (code) {
    ACCEL_ZE_RESULTS_1_4(ACCEL_ZE_RESULT_CASE)
    default:
      return nullptr;
  }
}

// The name of any code of the table (the 1.4 headers' and later ones), or nullptr.
constexpr const char* ze_result_name(std::uint32_t code) noexcept {
  switch (code) {
    ACCEL_ZE_RESULTS(ACCEL_ZE_RESULT_CASE)
    default:
      return nullptr;
  }
}

#undef ACCEL_ZE_RESULT_CASE

}  // namespace accel::abi::level_zero
