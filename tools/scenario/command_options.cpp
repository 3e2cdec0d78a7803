#include "command_options.h"

#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string_view>

#include "accel_common/numbers.h"
#include "accel_common/printable.h"

namespace accel::scenario {

using common::parse_unsigned_decimal;

std::uint64_t parse_seed(const std::string& text) {
  if (const auto value = parse_unsigned_decimal(text)) return *value;
  throw OptionError("--seed expects an unsigned integer from 0 to " +
                    std::to_string(std::numeric_limits<std::uint64_t>::max()) + ", got '" + text +
                    "'");
}

int parse_timeout(const std::string& text) {
  const auto value = parse_unsigned_decimal(text);
  if (value && *value >= 1 && *value <= static_cast<std::uint64_t>(kMaxTimeoutSeconds)) {
    return static_cast<int>(*value);
  }
  throw OptionError("--timeout expects a whole number of seconds from 1 to " +
                    std::to_string(kMaxTimeoutSeconds) + ", got '" + text + "'");
}

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const auto index = parse_unsigned_decimal(std::string_view(text).substr(0, slash));
  const auto count = slash == std::string::npos
                         ? std::nullopt
                         : parse_unsigned_decimal(std::string_view(text).substr(slash + 1));
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  if (!index || !count || *count < 1 || *count > kMax || *index >= *count) {
    throw OptionError("--shard expects I/N with 0 <= I < N, got '" + text + "'");
  }
  return Shard{static_cast<int>(*index), static_cast<int>(*count)};
}

std::vector<MachineChoice> parse_machines(const std::string& text) {
  std::vector<MachineChoice> machines;
  std::set<std::string> ids;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.empty()) {
      throw OptionError(
          "--machine expects a comma-separated list of presets or machine files (such as "
          "4xh100,2xmax1550), got '" +
          text + "'");
    }
    MachineChoice choice;
    try {
      choice.spec = mockdev::load_machine(item);
    } catch (const mockdev::MachineFileError& e) {
      throw OptionError("--machine '" + item + "': " + e.what());
    }
    const bool preset = item.find('/') == std::string::npos && mockdev::preset_yaml(item);
    // Case ids are printed in reports and JUnit files: control characters escaped.
    choice.id =
        accel::common::printable(preset ? item : std::filesystem::path(item).stem().string());
    choice.env = item;
    if (!ids.insert(choice.id).second) {
      throw OptionError("--machine names '" + choice.id + "' twice, in '" + text +
                        "' (each machine is a case id: name[" + choice.id + "])");
    }
    machines.push_back(std::move(choice));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return machines;
}

}  // namespace accel::scenario
