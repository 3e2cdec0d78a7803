#pragma once
// Asks the driver file the runtime was pointed at (ACCEL_CUDA_DRIVER; on the simulated
// machine, the mock libcuda.so.1) for its own device count, bypassing the runtime, so a
// test can compare the driver's view of CUDA_VISIBLE_DEVICES with the runtime's.
// Loading the file by path returns the object the runtime already loaded (same SONAME).
// Thread-safe.

#include <string>

namespace accel::test {

struct DriverCount {
  int result = -1;    // the CUresult of cuDeviceGetCount (-1: the driver could not be loaded)
  int count = -1;     // the count it wrote (-1 when it wrote nothing)
  std::string error;  // why the driver could not be loaded
};

// cuDeviceGetCount on the driver named by ACCEL_CUDA_DRIVER (default "libcuda.so.1").
// Does not call cuInit: before initialisation the driver answers CUDA_ERROR_NOT_INITIALIZED.
DriverCount driver_device_count();

}  // namespace accel::test
