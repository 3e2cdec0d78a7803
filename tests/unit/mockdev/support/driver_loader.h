#pragma once
// Test access to the simulated driver files, loaded the way the runtime loads a driver:
// dlopen by path, then dlsym of the exported symbols. The paths come from compile
// definitions set by tests/unit/mockdev/CMakeLists.txt ($<TARGET_FILE:...>). The libraries
// are opened once per process with RTLD_NODELETE and never closed.
// Thread-safe after the first call (function-local statics).

#include <set>
#include <string>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"

namespace mockdev::testing {

// Function pointers to every exported entry point of the mock libcuda.so.1.
struct CudaDriver {
  void* handle = nullptr;
#define MOCKDEV_TEST_PFN(name, version, symbol, params) \
  accel::cuda_abi::PFN_##name##_v##version symbol = nullptr;
  ACCEL_CUDA_ENTRY_POINTS(MOCKDEV_TEST_PFN)
#undef MOCKDEV_TEST_PFN
  accel::cuda_abi::PFN_cuGetProcAddress_v12000 cuGetProcAddress_v2 = nullptr;
  accel::cuda_abi::PFN_cuGetProcAddress_v11030 cuGetProcAddress = nullptr;
};

// Function pointers to every exported entry point of the mock libnvidia-ml.so.1.
struct NvmlLibrary {
  void* handle = nullptr;
#define MOCKDEV_TEST_NVML_PFN(symbol, ret, params) accel::nvml_abi::PFN_##symbol symbol = nullptr;
  ACCEL_NVML_ENTRY_POINTS(MOCKDEV_TEST_NVML_PFN)
#undef MOCKDEV_TEST_NVML_PFN
};

// The loaded libraries; abort the test process with a message if a file or a symbol is
// missing (nothing can be tested then).
const CudaDriver& cuda();
const NvmlLibrary& nvml();

// File paths of the two facades.
const char* cuda_driver_path();
const char* nvml_library_path();

// Names of the global symbols a shared object file defines in its dynamic symbol table
// (read from the ELF file itself, so dependencies' symbols are not included).
std::set<std::string> defined_dynamic_symbols(const std::string& path);

}  // namespace mockdev::testing
