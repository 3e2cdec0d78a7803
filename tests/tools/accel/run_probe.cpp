// accel_run_probe: a program that knows nothing of accel, run by `accel run` in the tests
// (tests/tools/accel/CMakeLists.txt). It opens the CUDA driver as any CUDA program does, by
// its soname and without a path (so the dynamic loader's search decides which file),
// prints the device count and the variables `accel run` sets, and exits with the status
// given as its first argument (0 without one). With `leak` as its second, it also allocates
// 4096 bytes on device 0 and never frees them (for MOCKDEV_LEAKS, `accel run --leaks`).
//
//   accel_run_probe [STATUS [leak]]
#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

constexpr const char* kShown[] = {"LD_LIBRARY_PATH", "ACCEL_CUDA_DRIVER",     "ACCEL_NVML_LIBRARY",
                                  "MOCKDEV_MACHINE", "ZE_ENABLE_ALT_DRIVERS", "MOCKDEV_SCHEDULE",
                                  "MOCKDEV_SEED",    "MOCKDEV_RACES",         "MOCKDEV_LEAKS",
                                  "MOCKDEV_TRACE"};

}  // namespace

int main(int argc, char** argv) {
  const int status = argc > 1 ? std::atoi(argv[1]) : 0;
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    std::printf("dlopen(libcuda.so.1): %s\n", dlerror());
    return 1;
  }
  using CuInit = int (*)(unsigned);
  using CuDeviceGetCount = int (*)(int*);
  const auto cu_init = reinterpret_cast<CuInit>(dlsym(driver, "cuInit"));
  const auto get_count = reinterpret_cast<CuDeviceGetCount>(dlsym(driver, "cuDeviceGetCount"));
  if (cu_init == nullptr || get_count == nullptr) {
    std::printf("libcuda.so.1 has no cuInit or cuDeviceGetCount\n");
    return 1;
  }
  int count = -1;
  const int init_result = cu_init(0);
  const int count_result = init_result == 0 ? get_count(&count) : init_result;
  std::printf("cuInit: %d, cuDeviceGetCount: %d, devices: %d\n", init_result, count_result, count);
  if (argc > 2 && std::string_view(argv[2]) == "leak" && count > 0) {
    using Retain = int (*)(void**, int);
    using SetCurrent = int (*)(void*);
    using Alloc = int (*)(unsigned long long*, std::size_t);
    const auto retain = reinterpret_cast<Retain>(dlsym(driver, "cuDevicePrimaryCtxRetain"));
    const auto set_current = reinterpret_cast<SetCurrent>(dlsym(driver, "cuCtxSetCurrent"));
    const auto alloc = reinterpret_cast<Alloc>(dlsym(driver, "cuMemAlloc_v2"));
    void* context = nullptr;
    unsigned long long leaked = 0;
    const int result = retain == nullptr || set_current == nullptr || alloc == nullptr ? -1
                       : retain(&context, 0) != 0                                      ? -2
                       : set_current(context) != 0                                     ? -3
                                                   : alloc(&leaked, 4096);
    std::printf("leaked 4096 bytes: %d\n", result);
  }
  for (const char* name : kShown) {
    const char* value = std::getenv(name);
    std::printf("%s=%s\n", name, value == nullptr ? "(unset)" : value);
  }
  std::fflush(stdout);
  return status;
}
