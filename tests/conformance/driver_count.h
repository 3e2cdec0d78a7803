#pragma once
// The driver file the runtime was pointed at, and its own device count asked directly,
// bypassing the runtime, so a test can compare the driver's view of CUDA_VISIBLE_DEVICES
// with the runtime's. Loaded with the shared loader (tests/support/abi_loader.h); opening
// the file by path returns the object the runtime already loaded (same SONAME).
// Header-only; thread-safe.

#include <cstdlib>
#include <string>

#include "abi_loader.h"

namespace accel::test {

// The driver file the runtime loads: ACCEL_CUDA_DRIVER, default libcuda.so.1.
inline std::string runtime_driver_file() {
  const char* path = std::getenv("ACCEL_CUDA_DRIVER");
  return path != nullptr && *path != '\0' ? path : "libcuda.so.1";
}

struct DriverCount {
  int result = -1;    // the CUresult of cuDeviceGetCount (-1: the driver could not be loaded)
  int count = -1;     // the count it wrote (-1 when it wrote nothing)
  std::string error;  // why the driver could not be loaded
};

// cuDeviceGetCount on the driver the runtime loads, bypassing the runtime, so a test can
// compare the driver's view of CUDA_VISIBLE_DEVICES with the runtime's. Does not call
// cuInit: before initialisation the driver answers CUDA_ERROR_NOT_INITIALIZED.
inline DriverCount driver_device_count() {
  DriverCount out;
  CudaEntryPoints driver;
  const LoadReport report =
      load_cuda_entry_points(runtime_driver_file(), driver, RTLD_NOW | RTLD_NODELETE);
  if (!report.opened()) {
    out.error = report.open_error;
    return out;
  }
  if (driver.cuDeviceGetCount == nullptr) {
    out.error = "cuDeviceGetCount not exported";
    return out;
  }
  int count = -1;
  out.result = static_cast<int>(driver.cuDeviceGetCount(&count));
  out.count = count;
  return out;
}

}  // namespace accel::test
