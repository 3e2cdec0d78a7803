// The `devices` section of a machine file (sections.h).

#include <charconv>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device_ids.h"
#include "core/vendor_registry.h"
#include "machine/sections.h"

namespace mockdev::machine_file {
namespace {

// Where each device's identifiers came from: the key's value node when the file gave it
// (for error lines), nullopt when it was generated.
struct IdOrigin {
  std::string path;  // "devices[i]"
  YAML::Node entry;
  std::optional<YAML::Node> uuid, pci_bus_id, mig_uuid;
};

// One identifier field, for the uniqueness check.
struct IdField {
  const char* key;
  const char* what;  // "a UUID", ...
  std::string DeviceSpec::*member;
  std::optional<YAML::Node> IdOrigin::*origin;
};

constexpr IdField kIdFields[] = {
    {"uuid", "a UUID", &DeviceSpec::uuid, &IdOrigin::uuid},
    {"pci_bus_id", "a PCI bus id", &DeviceSpec::pci_bus_id, &IdOrigin::pci_bus_id},
    {"mig_uuid", "a MIG UUID", &DeviceSpec::mig_uuid, &IdOrigin::mig_uuid},
};

// Device `index` (about to be added, from `origin`) must not share an identifier with an
// earlier one. The error names a key the file has: the new device's if it gave the value,
// else the earlier device's explicit key, saying which device gets the value by default
// (asking yaml-cpp for the mark of a key a device lacks would throw YAML::InvalidNode).
void check_unique(const YamlReader& reader, const std::vector<DeviceSpec>& devices,
                  const std::vector<IdOrigin>& origins, const DeviceSpec& device, int index,
                  const IdOrigin& origin) {
  for (const IdField& f : kIdFields) {
    const std::string& value = device.*(f.member);
    if (value.empty()) continue;  // mig_uuid is optional and never generated
    for (std::size_t j = 0; j < devices.size(); ++j) {
      if (devices[j].*(f.member) != value) continue;
      const std::string what = std::string(f.what) + " no other device has";
      const std::optional<YAML::Node>& mine = origin.*(f.origin);
      if (mine) reader.fail(*mine, YamlReader::join(origin.path, f.key), what, value);
      const std::optional<YAML::Node>& theirs = origins[j].*(f.origin);
      const std::string generated = " (device " + std::to_string(index) + " gets it by default)";
      if (theirs) {
        reader.fail(*theirs, YamlReader::join(origins[j].path, f.key), what + generated, value);
      }
      reader.fail(origin.entry, YamlReader::join(origin.path, f.key), what + generated, value);
    }
  }
}

void read_compute_capability(const YamlReader& reader, const YAML::Node& node,
                             const std::string& path, DeviceSpec& d) {
  constexpr std::string_view kWhat = "a compute capability such as \"9.0\"";
  const YAML::Node cc = reader.require(node, path, "compute_capability", kWhat);
  const std::string field = YamlReader::join(path, "compute_capability");
  const std::string text = reader.scalar(cc, field, kWhat);
  int major = 0, minor = 0;
  const std::size_t dot = text.find('.');
  const char* end = text.data() + text.size();
  bool ok = dot != std::string::npos && dot > 0 && dot + 1 < text.size();
  if (ok) {
    auto r1 = std::from_chars(text.data(), text.data() + dot, major);
    auto r2 = std::from_chars(text.data() + dot + 1, end, minor);
    ok = r1.ec == std::errc() && r1.ptr == text.data() + dot && r2.ec == std::errc() &&
         r2.ptr == end && major >= 1 && major <= 99 && minor >= 0 && minor <= 9;
  }
  if (!ok) reader.fail(cc, field, kWhat, text);
  d.cc_major = major;
  d.cc_minor = minor;
}

// The `attributes:` keys of a vendor's devices: those of the registered API that serves its
// devices and has them (CUDA for NVIDIA devices, whose keys are CUdevice_attribute names).
const core::DeviceAttributeKeys& attribute_keys(Vendor vendor) {
  for (const core::ApiRow& row : core::kApiRows) {
    if (row.device_attributes != nullptr && row.touches_devices_of == vendor)
      return *row.device_attributes;
  }
  throw std::logic_error("mockdev: no registered API has the attributes of " +
                         std::string(vendor_name(vendor)) + " devices");
}

// A device's `attributes:` map: attribute key (cuda.h's name without CU_DEVICE_ATTRIBUTE_,
// lower case) -> a 32-bit integer. An unknown key names the closest known ones; keys the
// device's own fields fix (multiprocessors, compute_capability, pci_bus_id) are refused.
void read_attributes(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                     DeviceSpec& d) {
  const core::DeviceAttributeKeys& keys = attribute_keys(d.vendor);
  if (!node.IsMap())
    reader.fail(node, path, "a mapping of attribute names to values", YamlReader::shown(node));
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key_node = it->first;
    const std::string key = reader.scalar(key_node, path, "an attribute name");
    const std::string field = YamlReader::join(path, key);
    std::optional<int> attribute = keys.from_key(key);
    if (!attribute) {
      std::string what = "a device attribute (cuda.h's name without CU_DEVICE_ATTRIBUTE_, lower case";
      const std::vector<std::string> close = keys.close_keys(key);
      for (std::size_t i = 0; i < close.size(); ++i) what += (i == 0 ? "; closest: " : ", ") + close[i];
      reader.fail(key_node, path, what + ")", key);
    }
    if (std::optional<std::string_view> fixed = keys.fixed_by(*attribute)) {
      reader.fail(key_node, path,
                  "an attribute the device's own keys do not set (" + key + " comes from " +
                      std::string(*fixed) + ")",
                  key);
    }
    if (d.attributes.count(*attribute) != 0) {
      reader.fail(key_node, path, "each attribute once (an alias names the same attribute)", key);
    }
    constexpr std::string_view kWhat = "an integer from -2147483648 to 2147483647";
    const std::string text = reader.scalar(it->second, field, kWhat);
    long long value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
        value < INT32_MIN || value > INT32_MAX) {
      reader.fail(it->second, field, kWhat, text);
    }
    d.attributes[*attribute] = static_cast<int>(value);
  }
}

// The keys of "Memory" (docs/MACHINE_FILES.md): allocation_granularity (a power of two of
// at least 4 KiB, as the driver's pages are, and at most the device's memory: a larger page
// could never be allocated, so every allocation would fail) and context_reserve (a size,
// or 0).
void read_memory_keys(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                      DeviceSpec& d) {
  if (YAML::Node g = node["allocation_granularity"]) {
    const std::string field = YamlReader::join(path, "allocation_granularity");
    constexpr std::string_view kWhat = "a power of two of at least 4 KiB (e.g. 2MiB)";
    const std::string text = reader.scalar(g, field, kWhat);
    if (text == "0") reader.fail(g, field, kWhat, text);
    const std::uint64_t bytes = reader.size(g, field);
    if (bytes < 4096 || (bytes & (bytes - 1)) != 0) reader.fail(g, field, kWhat, text);
    if (bytes > d.memory_bytes) {
      reader.fail(g, field,
                  std::string(kWhat) + " and at most the device's memory (" +
                      std::to_string(d.memory_bytes) + " bytes)",
                  text);
    }
    d.allocation_granularity = bytes;
  }
  if (YAML::Node r = node["context_reserve"]) {
    const std::string field = YamlReader::join(path, "context_reserve");
    const std::string text = reader.scalar(r, field, kSizeWhat);
    d.context_reserve_bytes = text == "0" ? 0 : reader.size(r, field);
  }
}

// Keys only one vendor's devices have (docs/MACHINE_FILES.md, "Vendors, tiles and Level
// Zero"): the CUDA-only facts of an NVIDIA device, the Level Zero facts of an Intel one.
constexpr std::string_view kNvidiaOnlyKeys[] = {"compute_capability", "multiprocessors",
                                                "mig_uuid", "attributes"};
constexpr std::string_view kIntelOnlyKeys[] = {"tiles", "integrated", "level_zero"};

// Most tiles a device may have: Intel's cards have 2 (Max 1550) or 4 (older Xe-HP parts).
constexpr int kMaxTiles = 8;

Vendor read_vendor(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  YAML::Node v = node["vendor"];
  if (!v) return Vendor::kNvidia;
  // "nvidia or intel": the registry's vendors (core/vendor_registry.cpp), in Vendor order.
  const std::span<const core::VendorRow> vendors = core::vendor_rows();
  std::string what;
  for (std::size_t i = 0; i < vendors.size(); ++i) {
    if (i > 0) what += i + 1 == vendors.size() ? " or " : ", ";
    what += vendors[i].name;
  }
  const std::string field = YamlReader::join(path, "vendor");
  const std::string text = reader.scalar(v, field, what);
  for (const core::VendorRow& vendor : vendors) {
    if (vendor.name == text) return vendor.vendor;
  }
  reader.fail(v, field, what, text);
}

// A key of the other vendor is an error naming it, at its line; `tiles` on an NVIDIA
// device has its own message (it is the likeliest slip: a multi-die NVIDIA part).
void check_vendor_keys(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                       Vendor vendor) {
  for (const auto& entry : node) {
    const YAML::Node key = entry.first;
    const std::string name = key.Scalar();
    const std::string field = YamlReader::join(path, name);
    if (vendor == Vendor::kIntel) {
      for (std::string_view k : kNvidiaOnlyKeys) {
        if (k == name)
          reader.fail(key, field, "no NVIDIA-only key on an Intel device (vendor: intel)", name);
      }
      continue;
    }
    if (name == "tiles") {
      reader.fail(key, field,
                  "no tiles on an NVIDIA device (tiles are Level Zero sub-devices of an Intel "
                  "device: vendor: intel)",
                  YamlReader::shown(entry.second));
    }
    for (std::string_view k : kIntelOnlyKeys) {
      if (k == name)
        reader.fail(key, field, "no Intel-only key on an NVIDIA device (add vendor: intel)", name);
    }
  }
}

// `tiles:` of an Intel device: 0 (untiled) or 2..kMaxTiles; each inconsistent sub-device
// layout has its own message.
int read_tiles(const YamlReader& reader, const YAML::Node& v, const std::string& field) {
  const std::string what = "a tile count: 0 (untiled) or 2 to " + std::to_string(kMaxTiles);
  const std::string text = reader.scalar(v, field, what);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    reader.fail(v, field, what, text);
  if (value < 0) reader.fail(v, field, "a tile count that is not negative (0 = untiled)", text);
  if (value == 1) {
    reader.fail(v, field,
                "0 (untiled) or at least 2 tiles (a device never has exactly one sub-device, "
                "spec D-2)",
                text);
  }
  if (value > kMaxTiles) reader.fail(v, field, what, text);
  return static_cast<int>(value);
}

// The Intel keys: tiles, integrated, level_zero, checked against each other and memory.
void read_intel_keys(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                     DeviceSpec& d) {
  auto field = [&](std::string_view key) { return YamlReader::join(path, key); };
  if (YAML::Node v = node["integrated"]) {
    const std::string text = reader.scalar(v, field("integrated"), "true or false");
    if (text != "true" && text != "false") reader.fail(v, field("integrated"), "true or false", text);
    d.integrated = text == "true";
  }
  if (YAML::Node v = node["tiles"]) {
    d.tiles = read_tiles(reader, v, field("tiles"));
    if (d.tiles > 0 && d.integrated) {
      reader.fail(v, field("tiles"),
                  "no tiles on an integrated GPU (integrated: true is never tiled)", v.Scalar());
    }
    if (d.tiles > 0 && d.memory_bytes % static_cast<std::uint64_t>(d.tiles) != 0) {
      const YAML::Node m = node["memory"];
      reader.fail(m, field("memory"),
                  "a size that divides evenly over the " + std::to_string(d.tiles) + " tiles",
                  m.Scalar());
    }
  }
  const std::uint64_t per_tile =
      d.tiles > 0 ? d.memory_bytes / static_cast<std::uint64_t>(d.tiles) : d.memory_bytes;
  if (YAML::Node z = node["level_zero"])
    read_level_zero_device(reader, z, field("level_zero"), per_tile, d.level_zero);
}

void read_device(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                 MachineSpec& spec, std::vector<IdOrigin>& origins) {
  if (!node.IsMap()) reader.fail(node, path, "a device mapping", YamlReader::shown(node));
  reader.check_keys(node, path,
                    {"name", "vendor", "memory", "compute_capability", "multiprocessors", "uuid",
                     "pci_bus_id", "mig_uuid", "count", "attributes", "allocation_granularity",
                     "context_reserve", "tiles", "integrated", "level_zero"});
  auto field = [&](std::string_view key) { return YamlReader::join(path, key); };
  DeviceSpec d;
  d.vendor = read_vendor(reader, node, path);
  check_vendor_keys(reader, node, path, d.vendor);
  d.name = reader.name(reader.require(node, path, "name", "a device name"), field("name"),
                       "a device name");
  d.memory_bytes = reader.size(reader.require(node, path, "memory", kSizeWhat), field("memory"));
  if (d.vendor == Vendor::kNvidia) {
    read_compute_capability(reader, node, path, d);
    d.multiprocessor_count = static_cast<int>(
        reader.integer(reader.require(node, path, "multiprocessors", "a multiprocessor count"),
                       field("multiprocessors"), 1, 100000));
    if (YAML::Node a = node["attributes"]) read_attributes(reader, a, field("attributes"), d);
  } else {
    read_intel_keys(reader, node, path, d);
  }
  read_memory_keys(reader, node, path, d);
  std::uint64_t count = 1;
  if (YAML::Node c = node["count"]) count = reader.integer(c, field("count"), 1, core::kMaxDevices);
  IdOrigin origin{path, node, {}, {}, {}};
  auto optional_id = [&](std::string_view key, std::string_view what, auto valid,
                         std::optional<YAML::Node>& where) -> std::string {
    YAML::Node v = node[std::string(key)];
    if (!v) return "";
    std::string s = reader.scalar(v, field(key), what);
    if (!valid(s)) reader.fail(v, field(key), what, s);
    if (count > 1)
      reader.fail(v, field(key), "no " + std::string(key) + " on a device with count > 1", s);
    where = v;
    return s;
  };
  d.uuid = optional_id(
      "uuid", "a UUID such as GPU-01234567-89ab-cdef-0123-456789abcdef",
      [](const std::string& s) { return core::is_uuid(s, "GPU-"); }, origin.uuid);
  d.pci_bus_id = optional_id(
      "pci_bus_id", "a PCI bus id such as 00000000:1B:00.0",
      [](const std::string& s) { return core::is_pci_bus_id(s); }, origin.pci_bus_id);
  d.mig_uuid = optional_id(
      "mig_uuid", "a MIG UUID such as MIG-01234567-89ab-cdef-0123-456789abcdef",
      [](const std::string& s) { return core::is_uuid(s, "MIG-"); }, origin.mig_uuid);
  for (std::uint64_t i = 0; i < count; ++i) {
    if (spec.devices.size() >= static_cast<std::size_t>(core::kMaxDevices)) {
      reader.fail(node, path,
                  "at most " + std::to_string(core::kMaxDevices) + " devices in a machine",
                  std::to_string(spec.devices.size() + count - i));
    }
    DeviceSpec copy = d;
    const int index = static_cast<int>(spec.devices.size());
    if (copy.uuid.empty()) copy.uuid = core::generate_uuid(spec.name, index);
    if (copy.pci_bus_id.empty()) copy.pci_bus_id = core::generate_pci_bus_id(index);
    check_unique(reader, spec.devices, origins, copy, index, origin);
    spec.devices.push_back(std::move(copy));
    origins.push_back(origin);
  }
}

}  // namespace

void read_devices(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec) {
  if (!node.IsSequence())
    reader.fail(node, "devices", "a list of devices", YamlReader::shown(node));
  std::vector<IdOrigin> origins;
  for (std::size_t i = 0; i < node.size(); ++i) {
    read_device(reader, node[i], "devices[" + std::to_string(i) + "]", spec, origins);
  }
}

}  // namespace mockdev::machine_file
