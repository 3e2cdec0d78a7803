#include "driver_symbols.h"

#include <dlfcn.h>

namespace accel::hardware {
namespace {

void* open_library(const std::string& file, std::string& error) {
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* text = dlerror();
    error = text != nullptr ? text : ("cannot open " + file);
  }
  return handle;
}

}  // namespace

bool load_cuda_driver(const std::string& file, CudaDriver& driver, std::string& error) {
  void* handle = open_library(file, error);
  if (handle == nullptr) return false;
#define ACCEL_PROBE_RESOLVE(member, symbol, type) \
  table.member = reinterpret_cast<type>(dlsym(handle, symbol));
  CudaDriver& table = driver;
  ACCEL_PROBE_CUDA_SYMBOLS(ACCEL_PROBE_RESOLVE)
  if (driver.init == nullptr || driver.device_get_count == nullptr) {
    error = file + " does not export cuInit/cuDeviceGetCount";
    return false;
  }
  return true;
}

bool load_nvml(const std::string& file, Nvml& nvml, std::string& error) {
  void* handle = open_library(file, error);
  if (handle == nullptr) return false;
  Nvml& table = nvml;
  ACCEL_PROBE_NVML_SYMBOLS(ACCEL_PROBE_RESOLVE)
#undef ACCEL_PROBE_RESOLVE
  if (nvml.init == nullptr || nvml.device_get_count == nullptr) {
    error = file + " does not export nvmlInit_v2/nvmlDeviceGetCount_v2";
    return false;
  }
  return true;
}

}  // namespace accel::hardware
