#pragma once
// DriverLibrary: the CUDA driver (libcuda.so.1, or the file ACCEL_CUDA_DRIVER names),
// loaded with dlopen and its entry points resolved through cuGetProcAddress.
//
// Loading never initialises the driver: it dlopens the file (RTLD_NOW | RTLD_LOCAL |
// RTLD_NODELETE, never closed: the driver's own atfork handlers must outlive us, and a
// driver cannot be unloaded safely anyway), finds cuGetProcAddress_v2 (or the 11.3-era
// 4-argument cuGetProcAddress) with dlsym, asks it for every ACCEL_CUDA_RUNTIME_ENTRY_POINTS entry
// at that entry's own introducing version (checking the result code, the pointer and the
// symbol status: a driver answers CUDA_SUCCESS with a null pointer for an unknown
// symbol), and calls cuDriverGetVersion. The toolkit's stub libcuda answers every call
// with CUDA_ERROR_STUB_LIBRARY (34); that is reported as "stub driver, no NVIDIA driver
// installed (<path>)".
//
// Ownership: load() returns an immutable object; the function table stays valid for the
// life of the process. Thread safety: immutable after load(), so freely shared.

#include <memory>
#include <string>

#include "accel_abi/cuda_driver.h"

namespace accel::detail::cuda {

// The resolved entry points, one member per ACCEL_CUDA_RUNTIME_ENTRY_POINTS entry, named like the
// entry's base name (api.cuInit, api.cuMemGetInfo).
struct DriverApi {
#define ACCEL_CUDA_DRIVER_API_MEMBER(name, version, symbol, params) \
  cuda_abi::PFN_##name##_v##version name = nullptr;
  ACCEL_CUDA_RUNTIME_ENTRY_POINTS(ACCEL_CUDA_DRIVER_API_MEMBER)
#undef ACCEL_CUDA_DRIVER_API_MEMBER
};

class DriverLibrary {
 public:
  // What load() found: a usable library, or why there is none.
  struct LoadResult {
    std::shared_ptr<const DriverLibrary> library;  // null when unusable
    std::string reason;                            // why unusable; empty when usable
    bool is_stub = false;                          // the toolkit's stub libcuda
    bool not_loaded = false;                       // dlopen failed (no such file, ...)
  };

  // Loads `path` ("libcuda.so.1" is searched like any dlopen name). Never throws.
  static LoadResult load(const std::string& path) noexcept;

  const DriverApi& api() const noexcept { return api_; }
  const std::string& path() const noexcept { return path_; }
  int driver_version() const noexcept { return driver_version_; }
  // Which resolver was found: "cuGetProcAddress_v2" or "cuGetProcAddress".
  const std::string& resolver() const noexcept { return resolver_; }

  // The driver's text for `code` (cuGetErrorString), or a fallback naming the code.
  std::string error_string(int code) const noexcept;
  // "CUDA_ERROR_INVALID_DEVICE"; from cuGetErrorName, else the ABI table.
  std::string error_name(int code) const noexcept;

 private:
  DriverLibrary() = default;

  DriverApi api_;
  std::string path_;
  std::string resolver_;
  int driver_version_ = 0;
};

}  // namespace accel::detail::cuda
