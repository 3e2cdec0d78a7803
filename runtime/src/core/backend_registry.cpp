// Backend selection over the generated table of compiled backends (Note [Which
// accelerator] in backend_registry.h).
#include "core/backend_registry.h"

#include "accel_common/environment_variables.h"
#include "spi/environment.h"

#include <cstdlib>

namespace accel::detail {

std::vector<std::string> compiled_backend_names() {
  std::vector<std::string> names;
  for (const BackendEntry& entry : compiled_backends()) names.emplace_back(entry.name);
  return names;
}

namespace {
std::string name_list(std::span<const BackendEntry> table) {
  std::string out;
  for (const BackendEntry& entry : table) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out.empty() ? "none" : out;
}

// Step 2: a configuration the user made (or an installed driver) that does not work.
// kUnsupported and the like mean "cannot tell", not "broken".
bool configuration_broken(Backend& backend) noexcept {
  const Status status = backend.configuration_status();
  return !status.ok() &&
         (status.kind() == ErrorKind::kConfig || status.kind() == ErrorKind::kDriver);
}

BackendSelection selected(std::unique_ptr<Backend> backend, SelectionRule rule) {
  BackendSelection selection;
  selection.backend = std::move(backend);
  selection.rule = rule;
  return selection;
}

// Steps 2-4 for ACCEL_BACKEND unset. Each backend is created once; the instances that
// answered are kept until the decision so that none is asked twice.
BackendSelection select_unrequested(std::span<const BackendEntry> table) {
  if (table.empty()) return {};
  std::vector<std::unique_ptr<Backend>> instances;
  instances.reserve(table.size());
  for (const BackendEntry& entry : table) {
    instances.push_back(entry.create());
    if (instances.back() == nullptr) continue;
    if (configuration_broken(*instances.back())) {
      return selected(std::move(instances.back()), SelectionRule::kBrokenConfiguration);
    }
  }
  for (std::unique_ptr<Backend>& backend : instances) {
    if (backend != nullptr && backend->fork_safe_device_count() > 0) {
      return selected(std::move(backend), SelectionRule::kVisibleDevice);
    }
  }
  return selected(std::move(instances.front()), SelectionRule::kFirstCompiled);
}
}  // namespace

Result<std::unique_ptr<Backend>> create_backend(std::string_view name) {
  for (const BackendEntry& entry : compiled_backends()) {
    if (name == entry.name) return entry.create();
  }
  return Status(ErrorKind::kConfig,
                "create_backend: backend '" + std::string(name) +
                    "' is not compiled in (compiled backends: " +
                    name_list(compiled_backends()) + ")");
}

BackendSelection select_backend(std::optional<std::string_view> requested,
                                std::span<const BackendEntry> table) {
  if (!requested || requested->empty()) return select_unrequested(table);
  if (*requested == "none") return {};
  for (const BackendEntry& entry : table) {
    if (*requested == entry.name) return selected(entry.create(), SelectionRule::kRequested);
  }
  BackendSelection selection;
  selection.error =
      Status(ErrorKind::kConfig, "ACCEL_BACKEND: unknown backend '" + std::string(*requested) +
                                     "' (compiled backends: " + name_list(table) +
                                     "; or 'none')");
  return selection;
}

BackendSelection select_backend(std::optional<std::string_view> requested) {
  return select_backend(requested, compiled_backends());
}

BackendSelection select_backend_from_environment() {
  const char* value = ::accel::detail::environment_variable(
      ::accel::common::environment_variable_name("ACCEL_BACKEND"));
  return select_backend(value ? std::optional<std::string_view>(value) : std::nullopt);
}

}  // namespace accel::detail
