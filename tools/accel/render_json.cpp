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

Json components_json(const std::vector<BackendComponent>& list) {
  Json components = Json::array();
  for (const BackendComponent& c : list) {
    components.push_back({{"role", c.role},
                          {"path", or_null(c.path)},
                          {"loaded", c.loaded},
                          {"version", or_null(c.version)}});
  }
  return components;
}

Json devices_json(const std::vector<DeviceRow>& rows) {
  Json devices = Json::array();
  for (const DeviceRow& row : rows) {
    Json capability = nullptr;
    if (row.cc_major && row.cc_minor)
      capability = std::to_string(*row.cc_major) + "." + std::to_string(*row.cc_minor);
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
  return devices;
}

// One compiled backend. `devices`: the selected one's rows (the top-level "devices"), an
// other backend's rows as its child listed them, or null when they were not listed
// (`devices_error` says why when a child failed).
Json backend_json(const BackendSection& section, const InfoReport& report) {
  const BackendReport& b = section.report;
  Json json;
  json["backend"] = b.backend;
  json["selected"] = b.selected;
  json["available"] = b.available;
  json["unavailable_reason"] = or_null(b.unavailable_reason);
  json["config_error"] = or_null(b.config_error);
  json["components"] = components_json(b.components);
  json["device_count"] = b.device_count;
  json["count_source"] = or_null(b.count_source == "none" ? std::string() : b.count_source);
  if (b.selected) {
    json["devices"] = b.available ? devices_json(report.devices) : Json::array();
  } else {
    json["devices"] = section.devices ? devices_json(*section.devices) : Json(nullptr);
  }
  json["devices_error"] = or_null(section.devices_error);
  // The files as the child that listed the devices saw them (null when none ran).
  json["child_components"] =
      section.child_components ? components_json(*section.child_components) : Json(nullptr);
  return json;
}

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
  // The simulated hardware's settings: each variable's value (null when unset) and the
  // rule that applies when it is unset (Note [Simulation settings] in info.cpp).
  Json simulation = Json::object();
  for (const SimulationSetting& setting : report.simulation) {
    simulation[setting.name] = {{"value", or_null(setting.value)},
                                {"default", setting.default_text}};
  }
  json["simulation"] = simulation;
  json["backend"] = b.backend;
  json["compiled_backends"] = b.compiled_backends;
  json["machine"] = or_null(report.machine);
  json["available"] = b.available;
  json["unavailable_reason"] = or_null(b.unavailable_reason);
  // The backend's components, each with its role: the same facts for every backend.
  json["components"] = components_json(b.components);
  json["driver_version"] = or_null(report.driver_version);
  json["device_count"] = b.device_count;
  json["count_source"] = or_null(b.count_source == "none" ? std::string() : b.count_source);
  // Only "nothing installed" falls back to the CPU; an error is no fallback.
  json["fallback"] = b.available || report.error ? Json(nullptr) : Json("cpu");
  json["error"] = report.error ? Json{{"kind", std::string(to_string(report.error->kind))},
                                      {"message", report.error->message},
                                      {"driver_error", or_null(report.error->driver_error)}}
                               : Json(nullptr);
  json["devices"] = devices_json(report.devices);
  json["current_device"] = or_null(report.current_device);
  // Every compiled backend (Note [Which accelerator]); the keys above describe the
  // selected one.
  Json backends = Json::array();
  for (const BackendSection& section : report.backends) {
    backends.push_back(backend_json(section, report));
  }
  json["backends"] = backends;
  // Invalid UTF-8 from a driver (a device name) becomes U+FFFD: the output always parses.
  out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace accel::tools
