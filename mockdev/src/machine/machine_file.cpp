// The machine-file reader (parse_machine, load_machine and MachineFileError in
// mockdev/machine.h): the file itself (read through accel::common::read_file, Note [Bounded
// readers]), the YAML (accel::common::load_yaml, Note [Bounded YAML]) and the document's
// top level; each section has its own reader (sections.h). Strict by design: an unknown
// or repeated key, a wrong type, a bad size or an unknown result code is an error naming
// the file, the 1-based line, the field path and the offending text, so a typo never
// silently changes the simulated machine. The format is documented in
// docs/MACHINE_FILES.md.

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "accel_common/bounded_file.h"
#include "accel_common/bounded_yaml.h"
#include "machine/sections.h"
#include "machine/yaml_reader.h"
#include "mockdev/machine.h"

namespace mockdev {

static_assert(kMaxMachineFileBytes == accel::common::kMaxMachineFileBytes,
              "machine.h states the bounded reader's limit for machine files");

MachineFileError::MachineFileError(std::string file, int line, const std::string& message)
    // Line 0: an error about the file as a whole (missing, not a regular file, too
    // large), whose message names the file itself ("machine file '<path>': ...").
    : std::runtime_error(line > 0 ? file + ":" + std::to_string(line) + ": " + message : message),
      file_(std::move(file)),
      line_(line) {}

namespace {

using machine_file::YamlReader;

std::string preset_list() {
  std::string presets;
  for (const std::string& p : preset_names()) presets += (presets.empty() ? "" : ", ") + p;
  return presets;
}

// The text of the machine file at `path`. A path that does not exist says so with the
// presets (a name without '/' may have been meant as one); anything else the bounded
// reader refuses (a FIFO, a device, a directory, a file over kMaxMachineFileBytes) is
// refused with its message, before any byte is parsed.
std::string read_machine_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
    const bool bare_name = path.find('/') == std::string::npos;
    throw MachineFileError(
        path, 0,
        bare_name
            ? "machine '" + path + "': no such preset or file (presets: " + preset_list() + ")"
            : "machine file '" + path + "': no such file (presets: " + preset_list() + ")");
  }
  accel::common::FileContents file =
      accel::common::read_file(path, kMaxMachineFileBytes, "machine file");
  if (!file.ok()) throw MachineFileError(path, 0, file.error);
  return std::move(file.text);
}

MachineSpec parse_document(const YamlReader& reader, std::string_view text) {
  YAML::Node root;
  try {
    root = accel::common::load_yaml(text);
  } catch (const accel::common::YamlError& e) {
    throw MachineFileError(reader.source(), e.line(), e.what());
  }
  if (!root.IsMap()) {
    // An empty or blank document has no node and so no line: report line 1, where the
    // mapping should start (lines are 1-based; 0 only for a file that could not be read).
    reader.fail_at(std::max(1, YamlReader::line_of(root)), "(document)",
                   "a mapping with keys name, devices", YamlReader::shown(root));
  }
  reader.check_keys(root, "", {"name", "driver_version", "level_zero", "devices", "faults",
                              "streams", "topology"});
  MachineSpec spec;
  spec.source = reader.source();
  spec.name =
      reader.name(reader.require(root, "", "name", "a machine name"), "name", "a machine name");
  if (YAML::Node v = root["driver_version"]) {
    spec.driver_version = static_cast<int>(reader.integer(v, "driver_version", 1, 1000000));
  }
  if (YAML::Node z = root["level_zero"]) machine_file::read_level_zero_driver(reader, z, spec);
  machine_file::read_devices(reader, reader.require(root, "", "devices", "a list of devices"),
                             spec);
  if (YAML::Node f = root["faults"]) machine_file::read_faults(reader, f, spec);
  if (YAML::Node s = root["streams"]) machine_file::read_streams(reader, s, spec);
  if (YAML::Node t = root["topology"]) machine_file::read_topology(reader, t, spec);
  return spec;
}

}  // namespace

MachineSpec parse_machine(std::string_view yaml_text, std::string_view source) {
  const YamlReader reader{std::string(source)};
  try {
    return parse_document(reader, yaml_text);
  } catch (const YAML::Exception& e) {
    // Defence in depth: the readers check before they ask yaml-cpp, so this is a reader
    // bug; it is still reported as a machine-file error, never as a raw yaml-cpp exception.
    throw MachineFileError(
        reader.source(), e.mark.line >= 0 ? e.mark.line + 1 : 1,
        "(document): expected a machine file this reader can read, got '" + e.msg + "'");
  }
}

MachineSpec load_machine(std::string_view path_or_preset) {
  if (path_or_preset.find('/') == std::string_view::npos) {
    if (std::optional<std::string> yaml = preset_yaml(path_or_preset)) {
      return parse_machine(*yaml, "preset:" + std::string(path_or_preset));
    }
  }
  const std::string path(path_or_preset);
  return parse_machine(read_machine_file(path), path);
}

}  // namespace mockdev
