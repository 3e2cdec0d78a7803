// Compiled backends and the ACCEL_BACKEND selection.
#include "core/backend_registry.h"

#include <cstdlib>

#ifdef ACCEL_HAVE_CUDA_BACKEND
#include "backends/cuda/cuda_backend.h"
#endif

#ifndef ACCEL_COMPILED_BACKENDS
#define ACCEL_COMPILED_BACKENDS ""
#endif

namespace accel::detail {

const std::vector<std::string>& compiled_backends() {
  static const std::vector<std::string>* const names = [] {
    auto* out = new std::vector<std::string>();
    std::string_view csv = ACCEL_COMPILED_BACKENDS;
    while (!csv.empty()) {
      std::size_t comma = csv.find(',');
      if (comma != 0) out->emplace_back(csv.substr(0, comma));
      if (comma == std::string_view::npos) break;
      csv.remove_prefix(comma + 1);
    }
    return out;
  }();
  return *names;
}

namespace {
std::string compiled_list() {
  std::string out;
  for (const std::string& name : compiled_backends()) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out.empty() ? "none" : out;
}
}  // namespace

Result<std::unique_ptr<Backend>> create_backend(std::string_view name) {
#ifdef ACCEL_HAVE_CUDA_BACKEND
  if (name == "cuda") return cuda::create_cuda_backend();
#endif
  return Status(ErrorKind::kConfig,
                "create_backend: backend '" + std::string(name) +
                    "' is not compiled in (compiled backends: " + compiled_list() + ")");
}

BackendSelection select_backend(std::optional<std::string_view> requested) {
  BackendSelection selection;
  if (!requested || requested->empty()) {
    if (compiled_backends().empty()) return selection;
    requested = compiled_backends().front();
  }
  if (*requested == "none") return selection;
  for (const std::string& name : compiled_backends()) {
    if (name != *requested) continue;
    Result<std::unique_ptr<Backend>> backend = create_backend(name);
    if (backend.ok()) {
      selection.backend = std::move(backend).value();
    } else {
      selection.error = backend.status();
    }
    return selection;
  }
  selection.error =
      Status(ErrorKind::kConfig, "ACCEL_BACKEND: unknown backend '" + std::string(*requested) +
                                     "' (compiled backends: " + compiled_list() + "; or 'none')");
  return selection;
}

BackendSelection select_backend_from_environment() {
  const char* value = std::getenv("ACCEL_BACKEND");
  return select_backend(value ? std::optional<std::string_view>(value) : std::nullopt);
}

}  // namespace accel::detail
