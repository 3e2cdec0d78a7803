// The machine-file reader (parse_machine, load_machine and MachineFileError in
// mockdev/machine.h). Strict by design: an unknown or repeated key, a wrong type, a bad
// size or an unknown result code is an error naming the file, the 1-based line, the field
// path and the offending text, so a typo never silently changes the simulated machine.
// The format is documented in docs/MACHINE_FILES.md.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "engine/device_ids.h"
#include "engine/entry_points.h"
#include "mockdev/machine.h"

namespace mockdev {

MachineFileError::MachineFileError(std::string file, int line, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + message),
      file_(std::move(file)),
      line_(line) {}

namespace {

using engine::generate_pci_bus_id;
using engine::generate_uuid;

constexpr std::string_view kSizeWhat =
    "a size in bytes or with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)";

class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  MachineSpec parse(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw MachineFileError(source_, e.mark.line + 1,
                             "(document): expected valid YAML, got '" + e.msg + "'");
    }
    if (!root.IsMap()) fail(root, "(document)", "a mapping with keys name, devices", shown(root));
    check_keys(root, "", {"name", "driver_version", "devices", "faults"});
    MachineSpec spec;
    spec.source = source_;
    spec.name = text_field(require(root, "", "name", "a machine name"), "name", "a machine name");
    if (YAML::Node v = root["driver_version"]) {
      spec.driver_version = static_cast<int>(integer(v, "driver_version", 1, 1000000));
    }
    parse_devices(require(root, "", "devices", "a list of devices"), spec);
    if (YAML::Node f = root["faults"]) parse_faults(f, spec);
    return spec;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, std::string_view what,
                         std::string_view got) const {
    throw MachineFileError(
        source_, line_of(node),
        path + ": expected " + std::string(what) + ", got '" + std::string(got) + "'");
  }

  int line_of(const YAML::Node& node) const {
    int line = node.Mark().line;
    return line >= 0 ? line + 1 : 0;
  }

  static std::string shown(const YAML::Node& node) {
    if (node.IsScalar()) return node.Scalar();
    if (node.IsSequence()) return "[...]";
    if (node.IsMap()) return "{...}";
    return "";
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  // Every key of `map` must be one of `known`, and appear once.
  void check_keys(const YAML::Node& map, const std::string& path,
                  std::initializer_list<std::string_view> known) const {
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    std::set<std::string> seen;
    for (const auto& entry : map) {
      const YAML::Node key = entry.first;  // a copy: yaml-cpp's iterator yields temporaries
      std::string name = key.IsScalar() ? key.Scalar() : shown(key);
      bool ok = key.IsScalar() && std::find(known.begin(), known.end(), name) != known.end();
      std::string where = path.empty() ? "(document)" : path;
      if (!ok) fail(key, where, "one of the keys " + list, name);
      if (!seen.insert(name).second) fail(key, where, "each key once", name);
    }
  }

  YAML::Node require(const YAML::Node& map, const std::string& path, std::string_view key,
                     std::string_view what) const {
    YAML::Node v = map[std::string(key)];
    if (!v || v.IsNull()) {
      throw MachineFileError(
          source_, line_of(v && v.Mark().line >= 0 ? v : map),
          join(path, key) + ": expected " + std::string(what) + " (required), got ''");
    }
    return v;
  }

  std::string scalar(const YAML::Node& node, const std::string& path, std::string_view what) const {
    if (!node.IsScalar()) fail(node, path, what, shown(node));
    return node.Scalar();
  }

  std::string text_field(const YAML::Node& node, const std::string& path,
                         std::string_view what) const {
    std::string s = scalar(node, path, what);
    if (s.empty()) fail(node, path, what, s);
    return s;
  }

  std::uint64_t integer(const YAML::Node& node, const std::string& path, std::uint64_t min,
                        std::uint64_t max) const {
    std::string what = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    std::string s = scalar(node, path, what);
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < min ||
        value > max) {
      fail(node, path, what, s);
    }
    return value;
  }

  std::uint64_t size(const YAML::Node& node, const std::string& path) const {
    std::string s = scalar(node, path, kSizeWhat);
    std::uint64_t number = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
    if (ec != std::errc() || ptr == s.data()) fail(node, path, kSizeWhat, s);
    std::string_view unit(ptr, s.data() + s.size() - ptr);
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
    struct Unit {
      std::string_view name;
      std::uint64_t factor;
    };
    constexpr Unit kUnits[] = {{"", 1},
                               {"B", 1},
                               {"KiB", 1ULL << 10},
                               {"MiB", 1ULL << 20},
                               {"GiB", 1ULL << 30},
                               {"TiB", 1ULL << 40},
                               {"KB", 1000ULL},
                               {"MB", 1000ULL * 1000},
                               {"GB", 1000ULL * 1000 * 1000},
                               {"TB", 1000ULL * 1000 * 1000 * 1000}};
    for (const Unit& u : kUnits) {
      if (u.name != unit) continue;
      if (number == 0 || number > UINT64_MAX / u.factor)
        fail(node, path, std::string(kSizeWhat) + " above 0", s);
      return number * u.factor;
    }
    fail(node, path, kSizeWhat, s);
  }

  // A result code by name or number; `family` ("CUDA" or "NVML") restricts the names.
  int code(const YAML::Node& node, const std::string& path, std::string_view family) const {
    std::string what = "a non-zero " + std::string(family) + " result code (name or number)";
    std::string s = scalar(node, path, what);
    std::optional<int> value = parse_result_code(s);
    bool named =
        !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) && s[0] != '-' && s[0] != '+';
    if (!value || *value == 0 || (named && s.rfind(std::string(family) + "_", 0) != 0)) {
      fail(node, path, what, s);
    }
    return *value;
  }

  void parse_device(const YAML::Node& node, const std::string& path, MachineSpec& spec) const {
    if (!node.IsMap()) fail(node, path, "a device mapping", shown(node));
    check_keys(node, path,
               {"name", "memory", "compute_capability", "multiprocessors", "uuid", "pci_bus_id",
                "mig_uuid", "count"});
    DeviceSpec d;
    d.name = text_field(require(node, path, "name", "a device name"), join(path, "name"),
                        "a device name");
    d.memory_bytes = size(require(node, path, "memory", kSizeWhat), join(path, "memory"));
    YAML::Node cc =
        require(node, path, "compute_capability", "a compute capability such as \"9.0\"");
    std::string cc_text =
        scalar(cc, join(path, "compute_capability"), "a compute capability such as \"9.0\"");
    {
      int major = 0, minor = 0;
      std::size_t dot = cc_text.find('.');
      const char* end = cc_text.data() + cc_text.size();
      bool ok = dot != std::string::npos && dot > 0 && dot + 1 < cc_text.size();
      if (ok) {
        auto r1 = std::from_chars(cc_text.data(), cc_text.data() + dot, major);
        auto r2 = std::from_chars(cc_text.data() + dot + 1, end, minor);
        ok = r1.ec == std::errc() && r1.ptr == cc_text.data() + dot && r2.ec == std::errc() &&
             r2.ptr == end && major >= 1 && major <= 99 && minor >= 0 && minor <= 9;
      }
      if (!ok)
        fail(cc, join(path, "compute_capability"), "a compute capability such as \"9.0\"", cc_text);
      d.cc_major = major;
      d.cc_minor = minor;
    }
    d.multiprocessor_count =
        static_cast<int>(integer(require(node, path, "multiprocessors", "a multiprocessor count"),
                                 join(path, "multiprocessors"), 1, 100000));
    std::uint64_t count = 1;
    if (YAML::Node c = node["count"])
      count = integer(c, join(path, "count"), 1, engine::kMaxDevices);
    auto optional_id = [&](std::string_view key, std::string_view what, auto valid) -> std::string {
      YAML::Node v = node[std::string(key)];
      if (!v) return "";
      std::string s = scalar(v, join(path, key), what);
      if (!valid(s)) fail(v, join(path, key), what, s);
      if (count > 1)
        fail(v, join(path, key), "no " + std::string(key) + " on a device with count > 1", s);
      return s;
    };
    d.uuid = optional_id("uuid", "a UUID such as GPU-01234567-89ab-cdef-0123-456789abcdef",
                         [](const std::string& s) { return engine::is_uuid(s, "GPU-"); });
    d.pci_bus_id = optional_id("pci_bus_id", "a PCI bus id such as 00000000:1B:00.0",
                               [](const std::string& s) { return engine::is_pci_bus_id(s); });
    d.mig_uuid =
        optional_id("mig_uuid", "a MIG UUID such as MIG-01234567-89ab-cdef-0123-456789abcdef",
                    [](const std::string& s) { return engine::is_uuid(s, "MIG-"); });
    for (std::uint64_t i = 0; i < count; ++i) {
      if (spec.devices.size() >= static_cast<std::size_t>(engine::kMaxDevices)) {
        fail(node, path, "at most " + std::to_string(engine::kMaxDevices) + " devices in a machine",
             std::to_string(spec.devices.size() + count - i));
      }
      DeviceSpec copy = d;
      int index = static_cast<int>(spec.devices.size());
      if (copy.uuid.empty()) copy.uuid = generate_uuid(spec.name, index);
      if (copy.pci_bus_id.empty()) copy.pci_bus_id = generate_pci_bus_id(index);
      for (const DeviceSpec& other : spec.devices) {
        if (other.uuid == copy.uuid)
          fail(node["uuid"], join(path, "uuid"), "a UUID no other device has", copy.uuid);
        if (other.pci_bus_id == copy.pci_bus_id) {
          fail(node["pci_bus_id"], join(path, "pci_bus_id"), "a PCI bus id no other device has",
               copy.pci_bus_id);
        }
        if (!copy.mig_uuid.empty() && other.mig_uuid == copy.mig_uuid) {
          fail(node["mig_uuid"], join(path, "mig_uuid"), "a MIG UUID no other device has",
               copy.mig_uuid);
        }
      }
      spec.devices.push_back(std::move(copy));
    }
  }

  void parse_devices(const YAML::Node& node, MachineSpec& spec) const {
    if (!node.IsSequence()) fail(node, "devices", "a list of devices", shown(node));
    for (std::size_t i = 0; i < node.size(); ++i) {
      parse_device(node[i], "devices[" + std::to_string(i) + "]", spec);
    }
  }

  void parse_faults(const YAML::Node& node, MachineSpec& spec) const {
    if (!node.IsMap()) fail(node, "faults", "a mapping of faults", shown(node));
    check_keys(node, "faults", {"driver_init", "nvml_init", "calls", "sticky"});
    FaultSchedule& f = spec.faults;
    if (YAML::Node v = node["driver_init"])
      f.driver_init_error = code(v, "faults.driver_init", "CUDA");
    if (YAML::Node v = node["nvml_init"]) f.nvml_init_error = code(v, "faults.nvml_init", "NVML");
    if (YAML::Node calls = node["calls"]) {
      if (!calls.IsSequence()) fail(calls, "faults.calls", "a list of call faults", shown(calls));
      for (std::size_t i = 0; i < calls.size(); ++i) {
        const YAML::Node c = calls[i];
        std::string path = "faults.calls[" + std::to_string(i) + "]";
        if (!c.IsMap()) fail(c, path, "a mapping with keys entry, nth, code", shown(c));
        check_keys(c, path, {"entry", "nth", "code"});
        CallFault fault;
        YAML::Node entry = require(c, path, "entry", "an entry point name");
        fault.entry_point = scalar(entry, join(path, "entry"), "an entry point name");
        bool nvml = engine::is_nvml_entry_point(fault.entry_point);
        if (!nvml && !engine::is_cuda_entry_point(fault.entry_point)) {
          fail(entry, join(path, "entry"), "an exported entry point such as cuMemAlloc_v2",
               fault.entry_point);
        }
        if (YAML::Node nth = c["nth"]) fault.nth = integer(nth, join(path, "nth"), 0, UINT64_MAX);
        fault.code = code(require(c, path, "code", "a result code"), join(path, "code"),
                          nvml ? "NVML" : "CUDA");
        f.calls.push_back(std::move(fault));
      }
    }
    if (YAML::Node sticky = node["sticky"]) {
      if (!sticky.IsSequence())
        fail(sticky, "faults.sticky", "a list of sticky errors", shown(sticky));
      for (std::size_t i = 0; i < sticky.size(); ++i) {
        const YAML::Node s = sticky[i];
        std::string path = "faults.sticky[" + std::to_string(i) + "]";
        if (!s.IsMap()) fail(s, path, "a mapping with keys device, code, after_calls", shown(s));
        check_keys(s, path, {"device", "code", "after_calls"});
        StickyError e;
        YAML::Node dev = require(s, path, "device", "a device index");
        std::uint64_t n = spec.devices.size();
        if (n == 0)
          fail(dev, join(path, "device"), "a device index, but the machine has no devices",
               shown(dev));
        e.device = static_cast<int>(integer(dev, join(path, "device"), 0, n - 1));
        e.code = code(require(s, path, "code", "a result code"), join(path, "code"), "CUDA");
        if (YAML::Node a = s["after_calls"])
          e.after_calls = integer(a, join(path, "after_calls"), 0, UINT64_MAX);
        f.sticky.push_back(e);
      }
    }
  }

  std::string source_;
};

}  // namespace

MachineSpec parse_machine(std::string_view yaml_text, std::string_view source) {
  return Parser(std::string(source)).parse(yaml_text);
}

MachineSpec load_machine(std::string_view path_or_preset) {
  if (path_or_preset.find('/') == std::string_view::npos) {
    if (std::optional<std::string> yaml = preset_yaml(path_or_preset)) {
      return parse_machine(*yaml, "preset:" + std::string(path_or_preset));
    }
  }
  std::string path(path_or_preset);
  std::ifstream in(path);
  if (!in) {
    std::string presets;
    for (const std::string& p : preset_names()) presets += (presets.empty() ? "" : ", ") + p;
    throw MachineFileError(path, 0,
                           "machine: expected a preset (" + presets +
                               ") or a readable machine file, got '" + path + "'");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_machine(text.str(), path);
}

}  // namespace mockdev
