#pragma once
// The strict YAML field reader of scenario files: each accessor checks one value and throws
// ScenarioError "<file>:<line>: <path>: expected <what>, got '<value>'", the same shape as
// machine-file errors (mockdev's reader is private to the engine, so this is its own).
// Unknown names (keys, steps, threads) come with the closest known names by edit distance.
// Control characters in a message are escaped (accel_common/printable.h), so an error is
// always one line. Stateless apart from the file name and the scenario's machine (set once
// it is read, so steps can check physical device indices); thread-compatible.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"
#include "scenario.h"

namespace accel::scenario {

class StepRegistry;

class Reader {
 public:
  Reader(std::string file, std::string directory, const StepRegistry& registry)
      : file_(std::move(file)), directory_(std::move(directory)), registry_(registry) {}
  const std::string& file() const { return file_; }
  // The directory of the scenario file, for relative paths in it.
  const std::string& directory() const { return directory_; }
  const StepRegistry& registry() const { return registry_; }
  // The scenario's machine, read before its steps (null until then).
  void set_machine(const mockdev::MachineSpec* machine) { machine_ = machine; }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, std::string_view what,
                         std::string_view got) const;
  [[noreturn]] void fail_at(int line, const std::string& message) const;

  static int line_of(const YAML::Node& node);  // 1-based; 0 when unknown
  static std::string shown(const YAML::Node& node);  // "1", "[...]", "{...}", ""
  static std::string join(const std::string& path, std::string_view key);

  // Every key of `map` is one of `known` (else the error lists the closest), once.
  void check_keys(const YAML::Node& map, const std::string& path,
                  const std::vector<std::string>& known) const;
  void require_map(const YAML::Node& node, const std::string& path, std::string_view what) const;
  std::string scalar(const YAML::Node& node, const std::string& path, std::string_view what) const;
  std::string text(const YAML::Node& node, const std::string& path, std::string_view what) const;
  // A non-empty scalar without control characters: a name that reports, tables and JUnit
  // files print (a scenario, a thread, a tag, a stream), where a newline would break them.
  std::string name(const YAML::Node& node, const std::string& path, std::string_view what) const;
  // A value for an environment variable: a scalar without a NUL character (setenv would
  // cut the value there, quietly changing it).
  std::string environment_value(const YAML::Node& node, const std::string& path) const;
  // A physical device index (the machine file's order) of the scenario's machine, of an
  // NVIDIA device when `nvidia` (the devices CUDA faults reach).
  int physical_device(const YAML::Node& node, const std::string& path, bool nvidia) const;
  std::int64_t integer(const YAML::Node& node, const std::string& path, std::int64_t min,
                       std::int64_t max) const;
  bool boolean(const YAML::Node& node, const std::string& path) const;
  // A size: bytes, or an integer with a unit (KiB, MiB, GiB, KB, MB, GB).
  std::uint64_t size(const YAML::Node& node, const std::string& path) const;
  // A CUDA result code, by name or number, non-zero.
  int cuda_code(const YAML::Node& node, const std::string& path) const;
  // A non-zero result code of `api` (CUDA, NVML or Level Zero), by one of that API's names
  // or a number (Level Zero's also in hex); anything else is refused as a machine file's
  // call fault refuses it ("expected a non-zero ZE result code (name or number)").
  int result_code(const YAML::Node& node, const std::string& path, mockdev::Api api) const;
  // An entry point of the simulated driver (symbol or base name); the error names the
  // closest ones, as a machine file's fault entry does.
  std::string entry_point(const YAML::Node& node, const std::string& path) const;
  // The API that exports an entry point entry_point() accepted: the machine-file reader's
  // resolution (a ze* or zes* name is Level Zero's, an nvml* name NVML's).
  mockdev::Api entry_point_api(const std::string& entry) const;
  // A YAML value as JSON (scalars that read as integers or booleans become numbers and
  // booleans; "null"/"~" null).
  static nlohmann::json to_json(const YAML::Node& node);

  // Parses a list of steps (the scenario's, a guard's body, a fork child's).
  // `threads`: the names a step may use; empty means only "main".
  std::vector<Step> steps(const YAML::Node& node, const std::string& path,
                          const std::vector<std::string>& threads) const;

  // Named objects (streams, events, graphs) that steps make or use, in the order read
  // (file order: a guard's body after the guard's own argument). check_object_names() then
  // fails at the first use of a name that no earlier step made.
  struct ObjectRef {
    std::string kind;  // "stream", "event", "graph"
    std::string name;
    std::string path;
    int line = 0;
    bool defines = false;
  };
  void note_object(ObjectRef ref) const { object_refs_.push_back(std::move(ref)); }
  void check_object_names() const;

 private:
  mutable std::vector<ObjectRef> object_refs_;
  // The names entry_point() accepted, with the API that exports each.
  mutable std::map<std::string, mockdev::Api> known_entry_points_;
  const mockdev::MachineSpec* machine_ = nullptr;
  std::string file_;
  std::string directory_;
  const StepRegistry& registry_;
};

// "a, b, c": the up to three names of `known` closest to `name` by edit distance (case
// ignored), nearest first.
std::string closest_names(std::string_view name, const std::vector<std::string>& known);

}  // namespace accel::scenario
