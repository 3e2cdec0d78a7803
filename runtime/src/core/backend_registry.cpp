// ACCEL_BACKEND selection over the generated table of compiled backends.
#include "core/backend_registry.h"

#include <cstdlib>

namespace accel::detail {

std::vector<std::string> compiled_backend_names() {
  std::vector<std::string> names;
  for (const BackendEntry& entry : compiled_backends()) names.emplace_back(entry.name);
  return names;
}

namespace {
std::string compiled_list() {
  std::string out;
  for (const BackendEntry& entry : compiled_backends()) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out.empty() ? "none" : out;
}
}  // namespace

Result<std::unique_ptr<Backend>> create_backend(std::string_view name) {
  for (const BackendEntry& entry : compiled_backends()) {
    if (name == entry.name) return entry.create();
  }
  return Status(ErrorKind::kConfig,
                "create_backend: backend '" + std::string(name) +
                    "' is not compiled in (compiled backends: " + compiled_list() + ")");
}

BackendSelection select_backend(std::optional<std::string_view> requested) {
  BackendSelection selection;
  if (!requested || requested->empty()) {
    if (compiled_backends().empty()) return selection;
    requested = compiled_backends().front().name;
  }
  if (*requested == "none") return selection;
  for (const BackendEntry& entry : compiled_backends()) {
    if (*requested != entry.name) continue;
    selection.backend = entry.create();
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
