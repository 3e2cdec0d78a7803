#pragma once
// Test access to the simulated driver files, opened the way the runtime opens a driver:
// dlopen by path, then every entry point of the ABI tables (the shared loader,
// tests/support/abi_loader.h). The paths come from compile definitions set by
// tests/unit/mockdev/CMakeLists.txt ($<TARGET_FILE:...>). The libraries are opened once
// per process with RTLD_NODELETE and never closed. The mock exports every row, so a file
// that cannot be opened or a symbol it does not export aborts the test process with a
// message naming the file and the symbols (nothing can be tested then).
// Thread-safe after the first call (function-local statics).

#include <set>
#include <string>

#include "abi_loader.h"

namespace mockdev::testing {

// Function pointers to every exported entry point of the mock libcuda.so.1 / libnvidia-ml.so.1.
using CudaDriver = accel::test::CudaEntryPoints;
using NvmlLibrary = accel::test::NvmlEntryPoints;

// The loaded libraries (see above for a missing file or symbol).
const CudaDriver& cuda();
const NvmlLibrary& nvml();

// File paths of the two facades.
const char* cuda_driver_path();
const char* nvml_library_path();

// Names of the global symbols a shared object file defines in its dynamic symbol table
// (read from the ELF file itself, so dependencies' symbols are not included).
std::set<std::string> defined_dynamic_symbols(const std::string& path);

}  // namespace mockdev::testing
