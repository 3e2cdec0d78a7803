// Device selection and queries: the public API of accel/accelerator.h as steps.
#include "accel/accelerator.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

json optional_json(const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); }

Action device_query(const StepArgs& args, std::function<json(DeviceArg)> query) {
  DeviceArg device = device_arg(args);
  return [device, query](StepEnv&) { return query(device); };
}

const StepRegistrar registrar({
    {"device_count", "no argument; returns the number of visible devices", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(device_count()); };
     }},
    {"is_available", "no argument; returns true or false", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(is_available()); };
     }},
    {"current_accelerator",
     "optional {check_available: bool}; returns the device type (\"cuda\") or null", true,
     [](const StepArgs& a) -> Action {
       bool check = false;
       if (a.node.IsDefined() && !a.node.IsNull()) {
         a.reader.require_map(a.node, a.path, "{check_available: true|false}");
         a.reader.check_keys(a.node, a.path, {"check_available"});
         check = a.reader.boolean(a.node["check_available"], Reader::join(a.path, "check_available"));
       }
       return [check](StepEnv&) {
         const std::optional<Device> d = current_accelerator(check);
         return d ? json(std::string(to_string(d->type()))) : json(nullptr);
       };
     }},
    {"set_device_index", "a device (index, \"cuda:N\" or null); returns nothing", false,
     [](const StepArgs& a) -> Action {
       DeviceArg device = device_arg(a);
       return [device](StepEnv&) {
         set_device_index(device);
         return json(nullptr);
       };
     }},
    {"current_device_index", "no argument; returns this thread's device index", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(current_device_index()); };
     }},
    {"exchange_device", "an index; returns the previous index", true,
     [](const StepArgs& a) -> Action {
       const int index = static_cast<int>(a.reader.integer(a.node, a.path, INT32_MIN, INT32_MAX));
       return [index](StepEnv&) { return json(exchange_device(index)); };
     }},
    {"maybe_exchange_device", "an index; returns the previous index", true,
     [](const StepArgs& a) -> Action {
       const int index = static_cast<int>(a.reader.integer(a.node, a.path, INT32_MIN, INT32_MAX));
       return [index](StepEnv&) { return json(maybe_exchange_device(index)); };
     }},
    {"get_device_capability", "a device or null; returns {major, minor}", true,
     [](const StepArgs& a) -> Action {
       return device_query(a, [](DeviceArg d) {
         const DeviceCapability c = get_device_capability(d);
         return json{{"major", c.major}, {"minor", c.minor},
                     {"supported_dtypes", c.supported_dtypes.size()}};
       });
     }},
    {"get_device_properties",
     "a device or null; returns {name, major, minor, total_memory, multi_processor_count, uuid, "
     "pci_bus_id, mig_enabled}",
     true,
     [](const StepArgs& a) -> Action {
       return device_query(a, [](DeviceArg d) {
         const DeviceProperties p = get_device_properties(d);
         return json{{"name", p.name},
                     {"major", p.major},
                     {"minor", p.minor},
                     {"total_memory", p.total_memory_bytes},
                     {"multi_processor_count", p.multi_processor_count},
                     {"uuid", p.uuid},
                     {"pci_bus_id", p.pci_bus_id},
                     {"mig_enabled", optional_json(p.mig_enabled)}};
       });
     }},
    {"get_memory_info", "a device or null; returns {free, total} in bytes", true,
     [](const StepArgs& a) -> Action {
       return device_query(a, [](DeviceArg d) {
         const MemoryInfo m = get_memory_info(d);
         return json{{"free", m.free_bytes}, {"total", m.total_bytes}};
       });
     }},
    {"backend_report",
     "no argument; returns {backend, available, device_count, count_source, config_error}", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         const BackendReport r = backend_report();
         return json{{"backend", r.backend},
                     {"available", r.available},
                     {"device_count", r.device_count},
                     {"count_source", r.count_source},
                     {"config_error", r.config_error}};
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
