#pragma once
// The strict YAML field reader every machine-file section uses: each accessor checks one
// value and throws MachineFileError "<file>:<line>: <field>: expected <what>, got '<value>'"
// (mockdev/machine.h) on anything else, so a typo never silently changes the machine. The
// value is shown with its control characters escaped (accel_common/printable.h), so an
// error line is always one line. Stateless apart from the file name; thread-compatible.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "mockdev/machine.h"

namespace mockdev::machine_file {

inline constexpr std::string_view kSizeWhat =
    "a size in bytes or with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)";

class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}
  const std::string& source() const { return source_; }

  // Throws the error for `node` (its line; 0 if it has none).
  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, std::string_view what,
                         std::string_view got) const;
  // Throws the error at a known 1-based line.
  [[noreturn]] void fail_at(int line, const std::string& path, std::string_view what,
                            std::string_view got) const;

  // 1-based line of `node`, 0 if it has none (a node yaml-cpp made up has no mark).
  static int line_of(const YAML::Node& node);
  // How a node is shown in "got '...'": the scalar, "[...]", "{...}" or "".
  static std::string shown(const YAML::Node& node);
  // "path.key" ("key" at the top).
  static std::string join(const std::string& path, std::string_view key);

  // Every key of `map` must be one of `known`, and appear once; an unknown key's error
  // names the known keys closest to it (accel::common::edit_distance).
  void check_keys(const YAML::Node& map, const std::string& path,
                  std::initializer_list<std::string_view> known) const {
    check_keys(map, path, std::span<const std::string_view>(known.begin(), known.size()));
  }
  // The same for a list built at run time (the `faults:` keys come from the vendor registry).
  void check_keys(const YAML::Node& map, const std::string& path,
                  std::span<const std::string_view> known) const;
  // map[key], which must be present and not null.
  YAML::Node require(const YAML::Node& map, const std::string& path, std::string_view key,
                     std::string_view what) const;
  std::string scalar(const YAML::Node& node, const std::string& path, std::string_view what) const;
  // A non-empty scalar.
  std::string text(const YAML::Node& node, const std::string& path, std::string_view what) const;
  // A non-empty scalar without control characters: a name that tables and messages print
  // (a device's or the machine's), where a newline or an ESC would break the line.
  std::string name(const YAML::Node& node, const std::string& path, std::string_view what) const;
  std::uint64_t integer(const YAML::Node& node, const std::string& path, std::uint64_t min,
                        std::uint64_t max) const;
  // A size above 0: bytes, or an integer with a unit (kSizeWhat).
  std::uint64_t size(const YAML::Node& node, const std::string& path) const;
  // A non-zero result code of `api`: one of its names, or a number.
  int code(const YAML::Node& node, const std::string& path, Api api) const;

 private:
  std::string source_;
};

}  // namespace mockdev::machine_file
