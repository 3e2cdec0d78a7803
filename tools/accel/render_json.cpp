// render_json (declared in render.h), with nlohmann-json.
#include <nlohmann/json.hpp>

#include "render.h"

namespace accel::tools {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json or_null(const std::string& value) { return value.empty() ? Json(nullptr) : Json(value); }

}  // namespace

void render_json(const InfoReport& report, std::ostream& out) {
  const BackendReport& b = report.backend;
  Json json;
  json["version"] = report.version;
  json["build"] = {{"compiler", report.build.compiler},
                   {"build_type", or_null(report.build.build_type)},
                   {"backends", report.build.backends},
                   {"cuda_abi_checked", report.build.cuda_abi_checked}};
  Json environment = Json::object();
  for (const EnvironmentValue& variable : report.environment) {
    environment[variable.name] = or_null(variable.value);
  }
  json["environment"] = environment;
  json["backend"] = b.backend;
  json["compiled_backends"] = b.compiled_backends;
  json["machine"] = or_null(report.machine);
  json["available"] = b.available;
  json["unavailable_reason"] = or_null(b.unavailable_reason);
  // The backend's components, each with its role: the same facts for every backend.
  Json components = Json::array();
  for (const BackendComponent& c : b.components) {
    components.push_back({{"role", c.role},
                          {"path", or_null(c.path)},
                          {"loaded", c.loaded},
                          {"version", or_null(c.version)}});
  }
  json["components"] = components;
  json["driver_version"] = or_null(report.driver_version);
  json["device_count"] = b.device_count;
  json["count_source"] = or_null(b.count_source == "none" ? std::string() : b.count_source);
  json["fallback"] = b.available ? Json(nullptr) : Json("cpu");
  Json devices = Json::array();
  for (const DeviceRow& row : report.devices) {
    Json capability = nullptr;
    if (row.cc_major && row.cc_minor) capability = std::to_string(*row.cc_major) + "." + std::to_string(*row.cc_minor);
    devices.push_back({{"index", row.index},
                       {"name", or_null(row.name)},
                       {"uuid", or_null(row.uuid)},
                       {"uuid_short", row.uuid ? Json(short_uuid(*row.uuid)) : Json(nullptr)},
                       {"pci_bus_id", or_null(row.pci_bus_id)},
                       {"compute_capability", capability},
                       {"multiprocessors", or_null(row.multiprocessors)},
                       {"mig_mode", or_null(row.mig_mode)},
                       {"total_memory_bytes", or_null(row.total_bytes)},
                       {"free_memory_bytes", or_null(row.free_bytes)},
                       {"error", or_null(row.error)}});
  }
  json["devices"] = devices;
  json["current_device"] = or_null(report.current_device);
  // Invalid UTF-8 from a driver (a device name) becomes U+FFFD: the output always parses.
  out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace accel::tools
