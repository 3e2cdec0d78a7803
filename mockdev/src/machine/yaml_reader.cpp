#include "machine/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <utility>
#include <vector>

#include "accel_common/edit_distance.h"
#include "accel_common/printable.h"
#include "machine/api_codes.h"

namespace mockdev::machine_file {

void YamlReader::fail(const YAML::Node& node, const std::string& path, std::string_view what,
                      std::string_view got) const {
  fail_at(line_of(node), path, what, got);
}

void YamlReader::fail_at(int line, const std::string& path, std::string_view what,
                         std::string_view got) const {
  // Line 0 is for errors about the file as a whole (MachineFileError): a node without a
  // line is reported at line 1, where the text starts.
  throw MachineFileError(
      source_, std::max(1, line),
      path + ": expected " + std::string(what) + ", got '" + accel::common::printable(got) + "'");
}

int YamlReader::line_of(const YAML::Node& node) {
  // A node for a missing key is "invalid" and yaml-cpp throws when asked for its mark.
  if (!node.IsDefined()) return 0;
  int line = node.Mark().line;
  return line >= 0 ? line + 1 : 0;
}

std::string YamlReader::shown(const YAML::Node& node) {
  if (!node.IsDefined()) return "";
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) return "[...]";
  if (node.IsMap()) return "{...}";
  return "";
}

std::string YamlReader::join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

namespace {

// " (closest: a, b)": the known keys within accel::common::close_distance_limit of `key`,
// nearest first (at most three); "" when none is close.
std::string closest_keys(std::string_view key, std::span<const std::string_view> known) {
  std::vector<std::pair<std::size_t, std::string_view>> close;
  const std::size_t limit = accel::common::close_distance_limit(key);
  for (std::string_view k : known) {
    const std::size_t d = accel::common::edit_distance(key, k);
    if (d <= limit) close.emplace_back(d, k);
  }
  std::stable_sort(close.begin(), close.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string list;
  for (std::size_t i = 0; i < close.size() && i < 3; ++i) {
    list += (i == 0 ? " (closest: " : ", ") + std::string(close[i].second);
  }
  return list.empty() ? "" : list + ")";
}

}  // namespace

void YamlReader::check_keys(const YAML::Node& map, const std::string& path,
                            std::span<const std::string_view> known) const {
  std::string list;
  for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  std::set<std::string> seen;
  for (const auto& entry : map) {
    const YAML::Node key = entry.first;  // a copy: yaml-cpp's iterator yields temporaries
    std::string name = key.IsScalar() ? key.Scalar() : shown(key);
    bool ok = key.IsScalar() && std::find(known.begin(), known.end(), name) != known.end();
    std::string where = path.empty() ? "(document)" : path;
    if (!ok) fail(key, where, "one of the keys " + list + closest_keys(name, known), name);
    if (!seen.insert(name).second) fail(key, where, "each key once", name);
  }
}

YAML::Node YamlReader::require(const YAML::Node& map, const std::string& path, std::string_view key,
                               std::string_view what) const {
  YAML::Node v = map[std::string(key)];
  if (!v || v.IsNull()) {
    const int line = v && line_of(v) > 0 ? line_of(v) : line_of(map);
    fail_at(line, join(path, key), std::string(what) + " (required)", "");
  }
  return v;
}

std::string YamlReader::scalar(const YAML::Node& node, const std::string& path,
                               std::string_view what) const {
  if (!node.IsScalar()) fail(node, path, what, shown(node));
  return node.Scalar();
}

std::string YamlReader::text(const YAML::Node& node, const std::string& path,
                             std::string_view what) const {
  std::string s = scalar(node, path, what);
  if (s.empty()) fail(node, path, what, s);
  return s;
}

std::string YamlReader::name(const YAML::Node& node, const std::string& path,
                             std::string_view what) const {
  std::string s = text(node, path, what);
  if (accel::common::find_control_character(s) != std::string::npos) {
    fail(node, path, std::string(what) + " without control characters", s);
  }
  return s;
}

std::uint64_t YamlReader::integer(const YAML::Node& node, const std::string& path,
                                  std::uint64_t min, std::uint64_t max) const {
  std::string what = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  std::string s = scalar(node, path, what);
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || value < min || value > max) {
    fail(node, path, what, s);
  }
  return value;
}

std::uint64_t YamlReader::size(const YAML::Node& node, const std::string& path) const {
  std::string s = scalar(node, path, kSizeWhat);
  std::uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || ptr == s.data()) fail(node, path, kSizeWhat, s);
  std::string_view unit(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr));
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

int YamlReader::code(const YAML::Node& node, const std::string& path, Api api) const {
  std::string family(code_family(api));
  std::string what = "a non-zero " + family + " result code (name or number)";
  std::string s = scalar(node, path, what);
  std::optional<int> value = parse_result_code(api, s);
  if (!value || *value == 0) fail(node, path, what, s);
  return *value;
}

}  // namespace mockdev::machine_file
