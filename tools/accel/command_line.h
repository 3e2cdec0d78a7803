#pragma once
// The `accel` tool's command line: what the user asked for, parsed from argv.
//
// Grammar:
//   accel info [--json] [--machine FILE|PRESET]
//   accel machines
//   accel --help | -h | help
//   accel --version
// `--machine=VALUE` is accepted too. Parsing is pure: it reads argv only and never
// touches the environment or the runtime. Values only; thread-safe.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace accel::tools {

enum class Command { kInfo, kMachines, kHelp, kVersion };

struct CommandLine {
  Command command = Command::kHelp;
  bool json = false;
  std::optional<std::string> machine;  // --machine FILE|PRESET
};

// A command line that does not follow the grammar; what() says which word is wrong.
// The tool prints it with the usage text on stderr and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the words after the program name. Throws UsageError.
CommandLine parse_command_line(const std::vector<std::string_view>& args);

// The usage text printed by --help (and, on stderr, after a UsageError).
std::string usage_text();

}  // namespace accel::tools
