// The machine-file reader (parse_machine, load_machine and MachineFileError in
// mockdev/machine.h): the file itself (a regular file of bounded size) and the document's
// top level; each section has its own reader (sections.h). Strict by design: an unknown
// or repeated key, a wrong type, a bad size or an unknown result code is an error naming
// the file, the 1-based line, the field path and the offending text, so a typo never
// silently changes the simulated machine. The format is documented in
// docs/MACHINE_FILES.md.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "machine/sections.h"
#include "machine/yaml_reader.h"
#include "mockdev/machine.h"

namespace mockdev {

MachineFileError::MachineFileError(std::string file, int line, const std::string& message)
    // Line 0: an error about the file as a whole (missing, not a regular file, too
    // large), which has no line to name.
    : std::runtime_error(file + (line > 0 ? ":" + std::to_string(line) : "") + ": " + message),
      file_(std::move(file)),
      line_(line) {}

namespace {

using machine_file::YamlReader;

std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes a file descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A file that cannot be opened or read: "no such file" when it does not exist (for a name
// without '/', which could have been a preset: "no such preset or file"), else the
// system's reason.
[[noreturn]] void unreadable(const std::string& path, int error) {
  std::string presets;
  for (const std::string& p : preset_names()) presets += (presets.empty() ? "" : ", ") + p;
  const bool bare_name = path.find('/') == std::string::npos;
  std::string why;
  if (error == ENOENT || error == ENOTDIR) {
    why = bare_name ? "no such preset or file" : "no such file";
  } else {
    why = std::string("cannot read it: ") + std::strerror(error);
  }
  const std::string what = bare_name ? "a preset (" + presets + ") or a machine file"
                                     : "a machine file or a preset (" + presets + ")";
  throw MachineFileError(path, 0,
                         "machine: expected " + what + ", got '" + path + "' (" + why + ")");
}

// The text of the machine file at `path`. Only a regular file of at most
// kMaxMachineFileBytes is read: O_NONBLOCK makes opening a FIFO without a writer return at
// once (the type check then rejects it), and the size is checked before and while reading,
// so /dev/zero, a FIFO or a huge file can neither block the process nor exhaust memory.
std::string read_machine_file(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) unreadable(path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) unreadable(path, errno);
  if (!S_ISREG(st.st_mode)) {
    throw MachineFileError(
        path, 0,
        "machine: expected a regular file, got '" + path + "' (" + file_kind(st.st_mode) + ")");
  }
  auto too_large = [&](std::uint64_t bytes) {
    throw MachineFileError(path, 0,
                           "machine: expected a file of at most " +
                               std::to_string(kMaxMachineFileBytes) + " bytes (1 MiB), got '" +
                               path + "' (" + std::to_string(bytes) + " bytes)");
  };
  if (static_cast<std::uint64_t>(st.st_size) > kMaxMachineFileBytes)
    too_large(static_cast<std::uint64_t>(st.st_size));
  // Read one byte more than allowed, so a file that grew since fstat is still caught.
  std::string text(kMaxMachineFileBytes + 1, '\0');
  std::size_t size = 0;
  while (size < text.size()) {
    ssize_t n = ::read(fd.get(), text.data() + size, text.size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) unreadable(path, errno);
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  if (size > kMaxMachineFileBytes) too_large(size);
  text.resize(size);
  return text;
}

MachineSpec parse_document(const YamlReader& reader, std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw MachineFileError(reader.source(), std::max(1, e.mark.line + 1),
                           "(document): expected valid YAML, got '" + e.msg + "'");
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
      reader.text(reader.require(root, "", "name", "a machine name"), "name", "a machine name");
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
        reader.source(), e.mark.line >= 0 ? e.mark.line + 1 : 0,
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
