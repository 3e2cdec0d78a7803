#pragma once
// The backend registry: which backends this build compiled in (ACCEL_BACKENDS at
// configure time) and which one the process uses (ACCEL_BACKEND at run time).
//
// ACCEL_BACKEND unset or empty selects the first compiled backend (none when the build
// has none); "none" selects no accelerator (CPU only); a compiled backend's name selects
// it; anything else is a configuration error, which the runtime keeps and throws from
// every call that needs the accelerator (device_count() then answers 0).
// Stateless; thread-safe.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/backend.h"
#include "core/status.h"

namespace accel::detail {

// The compiled backends, in ACCEL_BACKENDS order ({"cuda"} by default).
const std::vector<std::string>& compiled_backends();

// A new instance of the compiled backend `name`; kConfig when it is not compiled in.
Result<std::unique_ptr<Backend>> create_backend(std::string_view name);

struct BackendSelection {
  std::unique_ptr<Backend> backend;  // nullptr: no accelerator (or a config error)
  std::optional<Status> error;       // kConfig: "ACCEL_BACKEND: unknown backend 'foo' ..."
};

// Selection for the ACCEL_BACKEND value `requested` (nullopt = unset).
BackendSelection select_backend(std::optional<std::string_view> requested);
// select_backend() with the environment's ACCEL_BACKEND.
BackendSelection select_backend_from_environment();

}  // namespace accel::detail
