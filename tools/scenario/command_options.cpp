#include "command_options.h"

#include <limits>
#include <optional>
#include <string_view>

#include "accel_common/numbers.h"

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

}  // namespace accel::scenario
