#pragma once
// The one loader of the vendor driver files the tests open themselves, bypassing the
// runtime: a CUDA driver (libcuda.so.1: the mock facade by path, or the real driver) and
// NVML (libnvidia-ml.so.1). Used by the mock's own tests (tests/unit/mockdev/support), the
// conformance suite's direct driver calls (tests/conformance/driver_calls.h) and the
// hardware rule probe (tests/hardware).
//
// The tables are generated from the ABI tables the runtime resolves and the mock implements
// (ACCEL_CUDA_ENTRY_POINTS in accel_abi/cuda_driver.h, ACCEL_NVML_ENTRY_POINTS in
// accel_abi/nvml.h): one slot per row, named by the exported symbol and typed by the row's
// PFN, so a row added there is loaded here with no edit, and no test declares a driver
// signature of its own.
//
// A missing symbol never fails a load by itself: its slot stays null and the report names
// it. Each caller states what it needs, because they differ: the mock's tests need every
// row (the mock exports them all), the conformance suite and the probe need a few, and run
// on real drivers that may predate newer rows (cuEventElapsedTime_v2 is CUDA 12.8). A
// caller turns what is missing into an error naming the symbols (LoadReport::describe,
// missing_of) before it calls anything, so a missing entry point is never a call through a
// null pointer. Libraries are never closed: a driver must not be unloaded while the
// process may still call it. Thread-safe (no state of its own).

#include <dlfcn.h>

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"

namespace accel::test {

// Every entry point of the CUDA ABI table, by exported symbol (cuMemAlloc_v2, cuInit, ...).
struct CudaEntryPoints {
  void* handle = nullptr;  // dlopen's handle, or nullptr when the file could not be opened
#define ACCEL_TEST_CUDA_SLOT(name, version, symbol, params) \
  cuda_abi::PFN_##name##_v##version symbol = nullptr;
  ACCEL_CUDA_ENTRY_POINTS(ACCEL_TEST_CUDA_SLOT)
#undef ACCEL_TEST_CUDA_SLOT
  // The per-thread default-stream variants (cuMemcpyAsync_ptsz), same types as their rows.
#define ACCEL_TEST_CUDA_PT_SLOT(name, version, symbol, variant, pt_version, suffix, params, args, \
                                traits)                                                          \
  cuda_abi::PFN_##name##_v##version variant = nullptr;
  ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_TEST_CUDA_PT_SLOT)
#undef ACCEL_TEST_CUDA_PT_SLOT
  // The resolver is no row of the table: it is found with dlsym, never through itself.
  cuda_abi::PFN_cuGetProcAddress_v12000 cuGetProcAddress_v2 = nullptr;
  cuda_abi::PFN_cuGetProcAddress_v11030 cuGetProcAddress = nullptr;
};

// Every entry point of the NVML ABI table, by exported symbol.
struct NvmlEntryPoints {
  void* handle = nullptr;
#define ACCEL_TEST_NVML_SLOT(symbol, ret, params) nvml_abi::PFN_##symbol symbol = nullptr;
  ACCEL_NVML_ENTRY_POINTS(ACCEL_TEST_NVML_SLOT)
#undef ACCEL_TEST_NVML_SLOT
};

// What one load found.
struct LoadReport {
  std::string file;                         // as given to dlopen
  std::string open_error;                   // dlerror()'s text when dlopen failed, else empty
  std::vector<std::string> missing;         // the table's symbols the file does not export
  std::span<const std::string_view> table;  // every symbol the load looked up, in order

  bool opened() const { return open_error.empty(); }
  // Of `symbols`, those the file does not export, joined with ", " ("" when it exports
  // them all). A name the table does not have counts as missing and says so, so a misspelt
  // need fails loudly rather than passing unchecked.
  std::string missing_of(std::initializer_list<std::string_view> symbols) const;
  // "" when the file opened and exports every symbol of the table; else one line naming
  // the file and why ("cannot dlopen F: ..." or "F does not export a, b").
  std::string describe() const;
};

// The flags the runtime opens a driver with: bind everything now, keep the driver's symbols
// out of the global namespace, never unload it.
inline constexpr int kDriverDlopenFlags = RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE;

// dlopen(file, dlopen_flags), then dlsym of every symbol of the table into `out`.
LoadReport load_cuda_entry_points(const std::string& file, CudaEntryPoints& out,
                                  int dlopen_flags = kDriverDlopenFlags);
LoadReport load_nvml_entry_points(const std::string& file, NvmlEntryPoints& out,
                                  int dlopen_flags = kDriverDlopenFlags);

}  // namespace accel::test
