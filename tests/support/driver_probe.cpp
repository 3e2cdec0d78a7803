#include "driver_probe.h"

#include <dlfcn.h>

#include <cstdlib>

#include "accel_abi/cuda_driver.h"

namespace accel::test {

DriverCount driver_device_count() {
  DriverCount out;
  const char* path = std::getenv("ACCEL_CUDA_DRIVER");
  if (path == nullptr || *path == '\0') path = "libcuda.so.1";
  void* handle = dlopen(path, RTLD_NOW | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    out.error = why ? why : "dlopen failed";
    return out;
  }
  auto fn =
      reinterpret_cast<cuda_abi::PFN_cuDeviceGetCount_v2000>(dlsym(handle, "cuDeviceGetCount"));
  if (fn == nullptr) {
    out.error = "cuDeviceGetCount not exported";
    return out;
  }
  int count = -1;
  out.result = static_cast<int>(fn(&count));
  out.count = count;
  return out;
}

}  // namespace accel::test
