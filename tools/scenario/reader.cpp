#include "reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "accel_common/edit_distance.h"
#include "accel_common/printable.h"
#include "step_registry.h"

namespace accel::scenario {

std::string closest_names(std::string_view name, const std::vector<std::string>& known) {
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const std::string& k : known) ranked.emplace_back(accel::common::edit_distance(name, k), k);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string list;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) {
    list += (i == 0 ? "" : ", ") + ranked[i].second;
  }
  return list;
}

void Reader::fail(const YAML::Node& node, const std::string& path, std::string_view what,
                  std::string_view got) const {
  fail_at(line_of(node),
          path + ": expected " + std::string(what) + ", got '" + std::string(got) + "'");
}

void Reader::fail_at(int line, const std::string& message) const {
  // Line 0 is for errors about the file as a whole; a node yaml-cpp gives no line (the
  // null node of an empty document) is reported at line 1, where the text starts.
  throw ScenarioError(file_, std::max(1, line), accel::common::printable(message));
}

int Reader::line_of(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : 0;
}

std::string Reader::shown(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "";
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) return "[...]";
  if (node.IsMap()) return "{...}";
  return "";
}

std::string Reader::join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

void Reader::check_keys(const YAML::Node& map, const std::string& path,
                        const std::vector<std::string>& known) const {
  std::set<std::string> seen;
  const std::string where = path.empty() ? "(document)" : path;
  for (const auto& entry : map) {
    const YAML::Node key = entry.first;
    const std::string name = key.IsScalar() ? key.Scalar() : shown(key);
    if (!key.IsScalar() || std::find(known.begin(), known.end(), name) == known.end()) {
      fail(key, where, "a known key (closest: " + closest_names(name, known) + ")", name);
    }
    if (!seen.insert(name).second) fail(key, where, "each key once", name);
  }
}

void Reader::require_map(const YAML::Node& node, const std::string& path,
                         std::string_view what) const {
  if (!node.IsMap()) fail(node, path, what, shown(node));
}

std::string Reader::scalar(const YAML::Node& node, const std::string& path,
                           std::string_view what) const {
  if (!node.IsScalar()) fail(node, path, what, shown(node));
  return node.Scalar();
}

std::string Reader::text(const YAML::Node& node, const std::string& path,
                         std::string_view what) const {
  std::string s = scalar(node, path, what);
  if (s.empty()) fail(node, path, what, s);
  return s;
}

std::string Reader::name(const YAML::Node& node, const std::string& path,
                         std::string_view what) const {
  std::string s = text(node, path, what);
  if (accel::common::find_control_character(s) != std::string::npos) {
    fail(node, path, std::string(what) + " without control characters", s);
  }
  return s;
}

std::string Reader::environment_value(const YAML::Node& node, const std::string& path) const {
  std::string s = scalar(node, path, "a value or null");
  if (s.find('\0') != std::string::npos) {
    fail(node, path, "a value without a NUL character (the environment cannot hold one)", s);
  }
  return s;
}

int Reader::physical_device(const YAML::Node& node, const std::string& path, bool nvidia) const {
  const std::size_t count = machine_ != nullptr ? machine_->devices.size() : 0;
  if (count == 0) {
    fail(node, path, "a physical device index, but the machine has no devices", shown(node));
  }
  const std::string what =
      "a physical device index of the machine (0 to " + std::to_string(count - 1) + ")";
  const std::string s = scalar(node, path, what);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < 0 ||
      static_cast<std::uint64_t>(value) >= count) {
    fail(node, path, what, s);
  }
  const mockdev::DeviceSpec& device = machine_->devices[static_cast<std::size_t>(value)];
  if (nvidia && device.vendor != mockdev::Vendor::kNvidia) {
    fail(node, path,
         "an NVIDIA device of the machine (CUDA serves it; device " + s + " is " +
             std::string(mockdev::vendor_name(device.vendor)) + ")",
         s);
  }
  return static_cast<int>(value);
}

std::int64_t Reader::integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                             std::int64_t max) const {
  const std::string what =
      "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  const std::string s = scalar(node, path, what);
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < min ||
      value > max) {
    fail(node, path, what, s);
  }
  return value;
}

bool Reader::boolean(const YAML::Node& node, const std::string& path) const {
  const std::string s = scalar(node, path, "true or false");
  if (s == "true") return true;
  if (s == "false") return false;
  fail(node, path, "true or false", s);
}

std::uint64_t Reader::size(const YAML::Node& node, const std::string& path) const {
  constexpr std::string_view kWhat = "a size in bytes or with a unit (KiB, MiB, GiB, KB, MB, GB)";
  const std::string s = scalar(node, path, kWhat);
  std::uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || ptr == s.data()) fail(node, path, kWhat, s);
  std::string_view unit(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  const std::pair<std::string_view, std::uint64_t> units[] = {
      {"", 1},          {"B", 1},           {"KiB", 1ULL << 10},   {"MiB", 1ULL << 20},
      {"GiB", 1ULL << 30}, {"KB", 1000ULL}, {"MB", 1000ULL * 1000}, {"GB", 1000ULL * 1000 * 1000}};
  for (const auto& [name, factor] : units) {
    if (name != unit) continue;
    if (number > UINT64_MAX / factor) fail(node, path, kWhat, s);
    return number * factor;
  }
  fail(node, path, kWhat, s);
}

int Reader::cuda_code(const YAML::Node& node, const std::string& path) const {
  return result_code(node, path, mockdev::Api::kCuda);
}

int Reader::result_code(const YAML::Node& node, const std::string& path, mockdev::Api api) const {
  // The prefix of the API's code names, as the machine-file reader says it.
  std::string_view family = "CUDA";
  switch (api) {
    case mockdev::Api::kCuda:
      family = "CUDA";
      break;
    case mockdev::Api::kNvml:
      family = "NVML";
      break;
    case mockdev::Api::kLevelZero:
      family = "ZE";
      break;
  }
  const std::string what = "a non-zero " + std::string(family) + " result code (name or number)";
  const std::string s = scalar(node, path, what);
  const std::optional<int> code = mockdev::parse_result_code(api, s);
  if (!code || *code == 0) fail(node, path, what, s);
  return *code;
}

std::string Reader::entry_point(const YAML::Node& node, const std::string& path) const {
  const std::string name = text(node, path, "an entry point of the simulated driver");
  // Each name is probed once: a file may name the same entry point thousands of times
  // (one `calls:` per step), and a probe parses a whole machine.
  if (known_entry_points_.count(name) != 0) return name;
  // The machine-file reader is the one authority on entry-point names (symbols, base names,
  // the closest matches, the API that exports each): a one-fault machine checks the name
  // through the public parser. The name is emitted as a quoted YAML string, so no text in it
  // can change the probe; code 1 is a code of every API.
  YAML::Emitter quoted;
  quoted << YAML::DoubleQuoted << name;
  const std::string probe =
      "name: probe\ndevices: []\nfaults:\n  calls:\n    - {entry: " + std::string(quoted.c_str()) +
      ", nth: 1, code: 1}\n";
  mockdev::Api api = mockdev::Api::kCuda;
  try {
    api = mockdev::parse_machine(probe, "entry").faults.calls.at(0).api;
  } catch (const mockdev::MachineFileError& e) {
    std::string message = e.what();
    const std::string marker = "expected ";
    const std::size_t at = message.find(marker);
    const std::size_t got = message.rfind(", got '");
    std::string what = at != std::string::npos && got != std::string::npos && got > at
                           ? message.substr(at + marker.size(), got - at - marker.size())
                           : "an entry point of the simulated driver";
    fail(node, path, what, name);
  }
  known_entry_points_.emplace(name, api);
  return name;
}

mockdev::Api Reader::entry_point_api(const std::string& entry) const {
  return known_entry_points_.at(entry);
}

nlohmann::json Reader::to_json(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : node) list.push_back(to_json(item));
    return list;
  }
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& entry : node) object[entry.first.Scalar()] = to_json(entry.second);
    return object;
  }
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (s == "true") return true;
  if (s == "false") return false;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (!s.empty() && ec == std::errc() && ptr == s.data() + s.size()) return value;
  return s;
}

}  // namespace accel::scenario
