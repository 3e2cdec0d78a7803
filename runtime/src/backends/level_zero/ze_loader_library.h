#pragma once
// ZeLoader: the Level Zero loader (libze_loader.so.1, or the file ACCEL_LEVEL_ZERO_LOADER
// names), opened at run time and its entry points resolved by name.
//
// Loading never initialises anything: it dlopens the file (RTLD_NOW | RTLD_LOCAL |
// RTLD_NODELETE through backends/common/shared_object.h, never closed: the loader's
// function tables and the driver it loads must outlive every pointer we keep), then dlsyms
// every ACCEL_ZE_REQUIRED_TABLE row (the first one missing makes the loader unusable,
// naming the symbol and the file) and every ACCEL_ZE_OPTIONAL_TABLE row, on the same handle
// (RTLD_LOCAL: the loader's symbols are not global). An optional entry found here may still
// be unusable: a newer loader over an older driver leaves it unfilled, so callers also gate
// on the driver's API version.
//
// Which file, and what a failure means (Note [Misconfiguration is an error] in
// accel/accelerator.h):
//   LevelZeroBackendPaths::loader set    chosen by code (tests): like the default name
//   ACCEL_LEVEL_ZERO_LOADER set, non-empty   the user's choice: any failure is kConfig
//   otherwise "libze_loader.so.1"        absent: xpu unavailable (kUnavailable, CPU fallback);
//                                        present but lacking an entry point: kDriver
// Ownership: load() returns an immutable object; the table stays valid for the life of the
// process. Thread safety: immutable after load(), freely shared.

#include <memory>
#include <optional>
#include <string>

#include "accel_abi/level_zero.h"
#include "accel_common/environment_variables.h"
#include "spi/status.h"

namespace accel::detail::level_zero {

inline constexpr const char* kLoaderVariable =
    ::accel::common::environment_variable_name("ACCEL_LEVEL_ZERO_LOADER");
inline constexpr const char* kDefaultLoader = "libze_loader.so.1";

struct ZeLoader {
  abi::level_zero::ZeApi api;  // every required member non-null; optional ones may be null
  std::string path;            // the file opened
  void* handle = nullptr;      // its dlopen handle (never closed)
};

// What choosing and loading the loader found.
struct ZeLoaderLoad {
  std::unique_ptr<const ZeLoader> loader;  // null when unusable
  std::string path;                        // the file chosen
  const char* variable = nullptr;          // kLoaderVariable when the user chose it
  bool not_loaded = false;                 // dlopen failed (no such file, not a library)
  std::string reason;                      // why unusable; empty when usable

  // OK when usable; otherwise the Status the table above gives (kConfig naming the
  // variable, kUnavailable "Level Zero loader libze_loader.so.1 not found (install libze1)
  // ...", or kDriver). Throws only std::bad_alloc.
  Status status() const;
};

// The file to load: `given` (chosen by code), else ACCEL_LEVEL_ZERO_LOADER when set and
// non-empty, else kDefaultLoader; then loads it. Never throws.
ZeLoaderLoad load_ze_loader(const std::optional<std::string>& given) noexcept;

}  // namespace accel::detail::level_zero
