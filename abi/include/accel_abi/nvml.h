#pragma once
// The subset of the NVML C ABI (libnvidia-ml.so.1) that accel speaks, declared once.
//
// The CUDA backend uses NVML to count and identify GPUs without initialising the CUDA
// driver (Note [Fork-safe device count] in runtime/src/backends/cuda/cuda_nvml_library.h); the
// mock NVML facade (mockdev/src/nvml/nvml_facade.cpp) implements it. nvml.h ships with
// the driver, not with the CUDA toolkit, so unlike cuda_driver.h there is no header to
// check these declarations against at build time: the values below are NVML's public
// ABI (nvmlReturn_t numbers, buffer sizes, the nvmlMemory_t layout) written down once.

#include <cstdint>

namespace accel::nvml_abi {

#define ACCEL_NVML_RETURNS(X)                \
  X(NVML_SUCCESS, 0)                         \
  X(NVML_ERROR_UNINITIALIZED, 1)             \
  X(NVML_ERROR_INVALID_ARGUMENT, 2)          \
  X(NVML_ERROR_NOT_SUPPORTED, 3)             \
  X(NVML_ERROR_NO_PERMISSION, 4)             \
  X(NVML_ERROR_ALREADY_INITIALIZED, 5)       \
  X(NVML_ERROR_NOT_FOUND, 6)                 \
  X(NVML_ERROR_INSUFFICIENT_SIZE, 7)         \
  X(NVML_ERROR_INSUFFICIENT_POWER, 8)        \
  X(NVML_ERROR_DRIVER_NOT_LOADED, 9)         \
  X(NVML_ERROR_TIMEOUT, 10)                  \
  X(NVML_ERROR_IRQ_ISSUE, 11)                \
  X(NVML_ERROR_LIBRARY_NOT_FOUND, 12)        \
  X(NVML_ERROR_FUNCTION_NOT_FOUND, 13)       \
  X(NVML_ERROR_CORRUPTED_INFOROM, 14)        \
  X(NVML_ERROR_GPU_IS_LOST, 15)              \
  X(NVML_ERROR_RESET_REQUIRED, 16)           \
  X(NVML_ERROR_OPERATING_SYSTEM, 17)         \
  X(NVML_ERROR_LIB_RM_VERSION_MISMATCH, 18)  \
  X(NVML_ERROR_IN_USE, 19)                   \
  X(NVML_ERROR_MEMORY, 20)                   \
  X(NVML_ERROR_NO_DATA, 21)                  \
  X(NVML_ERROR_UNKNOWN, 999)

enum nvmlReturn_t : int {
#define ACCEL_NVML_RETURN_ENUMERATOR(name, value) name = value,
  ACCEL_NVML_RETURNS(ACCEL_NVML_RETURN_ENUMERATOR)
#undef ACCEL_NVML_RETURN_ENUMERATOR
};

struct nvmlDevice_st;  // opaque; the library defines it
using nvmlDevice_t = nvmlDevice_st*;

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// Buffer sizes NVML documents (the *_V2 sizes are the ones callers should pass).
inline constexpr unsigned kDeviceUuidBufferSize = 80;
inline constexpr unsigned kDeviceUuidV2BufferSize = 96;
inline constexpr unsigned kDeviceNameBufferSize = 64;
inline constexpr unsigned kDeviceNameV2BufferSize = 96;
inline constexpr unsigned kSystemDriverVersionBufferSize = 80;

// nvmlDeviceGetMigMode's modes (NVML_DEVICE_MIG_DISABLE / _ENABLE).
inline constexpr unsigned kDeviceMigDisable = 0;
inline constexpr unsigned kDeviceMigEnable = 1;

// Traits of an NVML entry point: the last column of ACCEL_NVML_TABLE (bit flags).
// Named apart from accel::cuda_abi's traits, so code that uses both namespaces stays
// unambiguous.
enum NvmlEntryTraits : unsigned {
  kNvmlNoTraits = 0,
  kNvmlNeedsInit = 1u << 0,  // before nvmlInit in this process: NVML_ERROR_UNINITIALIZED
};

// The entry points, each once, one row each:
//   X(exported symbol, return type, (parameters), (arguments), traits)
// The arguments repeat the parameter names so that forwarders can be generated. Adding an
// entry point: one row here plus its implementation in the mock
// (mockdev::nvml::impl::<symbol>, mockdev/src/nvml/); forwarders, the export list
// (libnvidia-ml.map) and type checks are generated from the row.
#define ACCEL_NVML_ROWS_(R, X, E)                                                                  \
  R(X, E, nvmlInit, nvmlReturn_t, (), (), kNvmlNoTraits)                                           \
  R(X, E, nvmlInit_v2, nvmlReturn_t, (), (), kNvmlNoTraits)                                        \
  R(X, E, nvmlShutdown, nvmlReturn_t, (), (), kNvmlNeedsInit)                                      \
  R(X, E, nvmlErrorString, const char*, (nvmlReturn_t result), (result), kNvmlNoTraits)            \
  R(X, E, nvmlDeviceGetCount_v2, nvmlReturn_t, (unsigned int* count), (count), kNvmlNeedsInit)     \
  R(X, E, nvmlDeviceGetHandleByIndex_v2, nvmlReturn_t, (unsigned int index, nvmlDevice_t* device), \
    (index, device), kNvmlNeedsInit)                                                               \
  R(X, E, nvmlDeviceGetUUID, nvmlReturn_t, (nvmlDevice_t device, char* uuid, unsigned int length), \
    (device, uuid, length), kNvmlNeedsInit)                                                        \
  R(X, E, nvmlDeviceGetName, nvmlReturn_t, (nvmlDevice_t device, char* name, unsigned int length), \
    (device, name, length), kNvmlNeedsInit)                                                        \
  R(X, E, nvmlDeviceGetMemoryInfo, nvmlReturn_t, (nvmlDevice_t device, nvmlMemory_t * memory),     \
    (device, memory), kNvmlNeedsInit)                                                              \
  R(X, E, nvmlDeviceGetHandleByUUID, nvmlReturn_t, (const char* uuid, nvmlDevice_t* device),       \
    (uuid, device), kNvmlNeedsInit)                                                                \
  R(X, E, nvmlDeviceGetMigMode, nvmlReturn_t,                                                      \
    (nvmlDevice_t device, unsigned int* current_mode, unsigned int* pending_mode),                 \
    (device, current_mode, pending_mode), kNvmlNeedsInit)                                          \
  R(X, E, nvmlSystemGetDriverVersion, nvmlReturn_t, (char* version, unsigned int length),         \
    (version, length), kNvmlNeedsInit)

// E is always empty; E ## symbol keeps the name from being macro-expanded on its way to X
// (the vendor's nvml.h defines e.g. nvmlInit as nvmlInit_v2): see ACCEL_CUDA_APPLY_ROW_.
#define ACCEL_NVML_APPLY_ROW_(X, E, symbol, ret, params, args, traits) \
  X(E##symbol, ret, params, args, traits)
#define ACCEL_NVML_NARROW_ROW_(X, E, symbol, ret, params, args, traits) X(E##symbol, ret, params)

// The whole table: X(symbol, return type, (parameters), (arguments), traits).
#define ACCEL_NVML_TABLE(X) ACCEL_NVML_ROWS_(ACCEL_NVML_APPLY_ROW_, X, )

// Without the forwarding and trait columns: X(symbol, return type, (parameters)). The
// runtime's NVML library resolves its entry points with this one.
#define ACCEL_NVML_ENTRY_POINTS(X) ACCEL_NVML_ROWS_(ACCEL_NVML_NARROW_ROW_, X, )

#define ACCEL_NVML_DECLARE_PFN(symbol, ret, params) using PFN_##symbol = ret(*) params;
ACCEL_NVML_ENTRY_POINTS(ACCEL_NVML_DECLARE_PFN)
#undef ACCEL_NVML_DECLARE_PFN

// Name of an nvmlReturn_t value, or nullptr for an unknown code.
constexpr const char* return_name(int code) {
  switch (code) {
#define ACCEL_NVML_RETURN_CASE(name, value) \
  case value:                               \
    return #name;
    ACCEL_NVML_RETURNS(ACCEL_NVML_RETURN_CASE)
#undef ACCEL_NVML_RETURN_CASE
  }
  return nullptr;
}

}  // namespace accel::nvml_abi
