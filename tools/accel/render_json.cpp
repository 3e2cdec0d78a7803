// render_json (declared in render.h).
#include <cstdint>

#include "json_writer.h"
#include "render.h"

namespace accel::tools {

void render_json(const InfoReport& report, std::ostream& out) {
  const BackendReport& b = report.backend;
  JsonWriter json(out);
  json.begin_object();
  json.field("version", report.version);
  json.field("backend", b.backend);
  json.key("compiled_backends");
  json.begin_array();
  for (const std::string& name : b.compiled_backends) json.value(name);
  json.end_array();
  json.key("machine");
  if (report.machine) {
    json.value(*report.machine);
  } else {
    json.null();
  }
  json.field("available", b.available);
  json.field("unavailable_reason", b.unavailable_reason);
  // The backend's components, each with its role: the same facts for every backend.
  json.key("components");
  json.begin_array();
  for (const BackendComponent& c : b.components) {
    json.begin_object();
    json.field("role", c.role);
    json.field("path", c.path);
    json.field("loaded", c.loaded);
    json.key("version");
    if (c.version.empty()) {
      json.null();
    } else {
      json.value(c.version);
    }
    json.end_object();
  }
  json.end_array();
  json.field("device_count", b.device_count);
  json.field("count_source", b.count_source);
  json.key("fallback");
  if (b.available) {
    json.null();
  } else {
    json.value("cpu");
  }
  json.key("devices");
  json.begin_array();
  for (const DeviceRow& row : report.devices) {
    json.begin_object();
    json.field("index", row.index);
    if (!row.error.empty()) {
      json.field("error", row.error);
      json.end_object();
      continue;
    }
    json.field("name", row.name);
    json.field("compute_capability",
               std::to_string(row.cc_major) + "." + std::to_string(row.cc_minor));
    json.field("total_memory_bytes", static_cast<std::uint64_t>(row.total_bytes));
    json.field("free_memory_bytes", static_cast<std::uint64_t>(row.free_bytes));
    json.field("uuid", row.uuid);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace accel::tools
