// The `faults` section of a machine file (sections.h). Every fault belongs to one API and
// its code must be one of that API's codes (machine/api_codes.h): a call fault's API is the
// API that exports its entry point; each API's init fault has the key its registry row
// names (driver_init is CUDA's, nvml_init NVML's, level_zero_init Level Zero's); a sticky
// error names its API with `api:` (default cuda; an API whose row says whose devices its
// calls touch: cuda, level_zero), and its device must be one that API serves (an NVIDIA
// device for cuda, an Intel one for level_zero). The APIs are the vendor registry's rows
// (core/vendor_registry.h), in Api order.

#include <string>
#include <vector>

#include "core/vendor_registry.h"
#include "machine/api_codes.h"
#include "machine/sections.h"

namespace mockdev::machine_file {
namespace {

// "an API whose calls touch a device (cuda, level_zero)": the APIs a sticky error may name.
std::string sticky_api_what() {
  std::string names;
  for (const core::ApiRow& row : core::kApiRows) {
    if (!row.touches_devices_of) continue;
    names += (names.empty() ? "" : ", ") + std::string(row.name);
  }
  return "an API whose calls touch a device (" + names + ")";
}

void read_call_faults(const YamlReader& reader, const YAML::Node& calls, FaultSchedule& f) {
  if (!calls.IsSequence())
    reader.fail(calls, "faults.calls", "a list of call faults", YamlReader::shown(calls));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const YAML::Node c = calls[i];
    const std::string path = "faults.calls[" + std::to_string(i) + "]";
    if (!c.IsMap())
      reader.fail(c, path, "a mapping with keys entry, nth, code", YamlReader::shown(c));
    reader.check_keys(c, path, {"entry", "nth", "code"});
    CallFault fault;
    const YAML::Node entry = reader.require(c, path, "entry", "an entry point name");
    const std::string name =
        reader.scalar(entry, YamlReader::join(path, "entry"), "an entry point name");
    // The exported symbol or the base name error messages show (cuMemGetInfo_v2 or
    // cuMemGetInfo); an unknown name is reported with the closest known ones.
    std::optional<EntryPointName> resolved = resolve_entry_point(name);
    if (!resolved)
      reader.fail(entry, YamlReader::join(path, "entry"), expected_entry_point(name), name);
    fault.entry_point = std::string(resolved->symbol);
    fault.api = resolved->api;
    if (YAML::Node nth = c["nth"])
      fault.nth = reader.integer(nth, YamlReader::join(path, "nth"), 0, UINT64_MAX);
    fault.code = reader.code(reader.require(c, path, "code", "a result code"),
                             YamlReader::join(path, "code"), fault.api);
    f.calls.push_back(std::move(fault));
  }
}

void read_sticky_errors(const YamlReader& reader, const YAML::Node& sticky, const MachineSpec& spec,
                        FaultSchedule& f) {
  if (!sticky.IsSequence())
    reader.fail(sticky, "faults.sticky", "a list of sticky errors", YamlReader::shown(sticky));
  for (std::size_t i = 0; i < sticky.size(); ++i) {
    const YAML::Node s = sticky[i];
    const std::string path = "faults.sticky[" + std::to_string(i) + "]";
    if (!s.IsMap())
      reader.fail(s, path, "a mapping with keys device, code, after_calls", YamlReader::shown(s));
    reader.check_keys(s, path, {"device", "code", "after_calls", "api"});
    StickyError e;
    if (YAML::Node a = s["api"]) {
      // Only an API with calls that touch a device can have a sticky error.
      const std::string what = sticky_api_what();
      const std::string name = reader.scalar(a, YamlReader::join(path, "api"), what);
      const std::optional<Api> api = api_from_name(name);
      if (!api || !core::api_row(*api).touches_devices_of)
        reader.fail(a, YamlReader::join(path, "api"), what, name);
      e.api = *api;
    }
    const YAML::Node dev = reader.require(s, path, "device", "a device index");
    const std::uint64_t n = spec.devices.size();
    if (n == 0) {
      reader.fail(dev, YamlReader::join(path, "device"),
                  "a device index, but the machine has no devices", YamlReader::shown(dev));
    }
    e.device = static_cast<int>(reader.integer(dev, YamlReader::join(path, "device"), 0, n - 1));
    // The device index is physical (the file's order); the API must serve that device, or
    // the error could never fire.
    const Vendor served = *core::api_row(e.api).touches_devices_of;
    const Vendor vendor = spec.devices[static_cast<std::size_t>(e.device)].vendor;
    if (vendor != served) {
      reader.fail(dev, YamlReader::join(path, "device"),
                  "a device api " + std::string(api_name(e.api)) + " serves (an " +
                      std::string(core::vendor_row(served).display) + " device; device " +
                      std::to_string(e.device) + " is " + std::string(vendor_name(vendor)) + ")",
                  dev.Scalar());
    }
    e.code = reader.code(reader.require(s, path, "code", "a result code"),
                         YamlReader::join(path, "code"), e.api);
    if (YAML::Node a = s["after_calls"])
      e.after_calls = reader.integer(a, YamlReader::join(path, "after_calls"), 0, UINT64_MAX);
    f.sticky.push_back(e);
  }
}

// `memory: [{device, fail_nth_allocation, fail_allocations_above, capacity}]`: each entry
// names a device and at least one of the three.
void read_memory_faults(const YamlReader& reader, const YAML::Node& memory, const MachineSpec& spec,
                        FaultSchedule& f) {
  if (!memory.IsSequence())
    reader.fail(memory, "faults.memory", "a list of memory faults", YamlReader::shown(memory));
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const YAML::Node m = memory[i];
    const std::string path = "faults.memory[" + std::to_string(i) + "]";
    constexpr std::string_view kWhat =
        "a mapping with keys device and fail_nth_allocation, fail_allocations_above or capacity";
    if (!m.IsMap()) reader.fail(m, path, kWhat, YamlReader::shown(m));
    reader.check_keys(m, path, {"device", "fail_nth_allocation", "fail_allocations_above",
                                "capacity"});
    MemoryFault fault;
    const YAML::Node dev = reader.require(m, path, "device", "a device index");
    const std::uint64_t n = spec.devices.size();
    if (n == 0) {
      reader.fail(dev, YamlReader::join(path, "device"),
                  "a device index, but the machine has no devices", YamlReader::shown(dev));
    }
    fault.device =
        static_cast<int>(reader.integer(dev, YamlReader::join(path, "device"), 0, n - 1));
    if (YAML::Node v = m["fail_nth_allocation"]) {
      fault.fail_nth_allocation =
          reader.integer(v, YamlReader::join(path, "fail_nth_allocation"), 1, UINT64_MAX);
    }
    if (YAML::Node v = m["fail_allocations_above"]) {
      const std::string field = YamlReader::join(path, "fail_allocations_above");
      const bool zero = reader.scalar(v, field, kSizeWhat) == "0";
      fault.fail_allocations_above = zero ? 0 : reader.size(v, field);
    }
    if (YAML::Node v = m["capacity"]) {
      const std::string field = YamlReader::join(path, "capacity");
      const std::string text = reader.scalar(v, field, kSizeWhat);
      const std::uint64_t bytes = text == "0" ? 0 : reader.size(v, field);
      const std::uint64_t most = spec.devices[static_cast<std::size_t>(fault.device)].memory_bytes;
      if (bytes > most) {
        reader.fail(v, field, "a size of at most the device's memory (" + std::to_string(most) +
                                  " bytes)", text);
      }
      fault.capacity = bytes;
    }
    if (!fault.fail_nth_allocation && !fault.fail_allocations_above && !fault.capacity) {
      reader.fail(m, path, kWhat, YamlReader::shown(m));
    }
    f.memory.push_back(fault);
  }
}

}  // namespace

void read_faults(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec) {
  if (!node.IsMap()) reader.fail(node, "faults", "a mapping of faults", YamlReader::shown(node));
  std::vector<std::string_view> keys;
  for (const core::ApiRow& row : core::kApiRows) keys.push_back(row.init_fault);
  for (std::string_view k : {"calls", "sticky", "memory"}) keys.push_back(k);
  reader.check_keys(node, "faults", keys);
  FaultSchedule& f = spec.faults;
  for (const core::ApiRow& row : core::kApiRows) {
    if (YAML::Node v = node[std::string(row.init_fault)])
      f.*row.init_error = reader.code(v, "faults." + std::string(row.init_fault), row.api);
  }
  if (YAML::Node calls = node["calls"]) read_call_faults(reader, calls, f);
  if (YAML::Node sticky = node["sticky"]) read_sticky_errors(reader, sticky, spec, f);
  if (YAML::Node memory = node["memory"]) read_memory_faults(reader, memory, spec, f);
}

}  // namespace mockdev::machine_file
