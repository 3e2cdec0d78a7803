#include "command_options.h"

#include <charconv>
#include <limits>
#include <optional>
#include <string_view>

namespace accel::scenario {
namespace {

// `text` as an unsigned decimal number: digits only (no sign, no space), no overflow.
std::optional<std::uint64_t> unsigned_decimal(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

std::uint64_t parse_seed(const std::string& text) {
  if (const auto value = unsigned_decimal(text)) return *value;
  throw OptionError("--seed expects an unsigned integer from 0 to " +
                    std::to_string(std::numeric_limits<std::uint64_t>::max()) + ", got '" + text +
                    "'");
}

int parse_timeout(const std::string& text) {
  const auto value = unsigned_decimal(text);
  if (value && *value >= 1 && *value <= static_cast<std::uint64_t>(kMaxTimeoutSeconds)) {
    return static_cast<int>(*value);
  }
  throw OptionError("--timeout expects a whole number of seconds from 1 to " +
                    std::to_string(kMaxTimeoutSeconds) + ", got '" + text + "'");
}

Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const auto index = unsigned_decimal(std::string_view(text).substr(0, slash));
  const auto count = slash == std::string::npos
                         ? std::nullopt
                         : unsigned_decimal(std::string_view(text).substr(slash + 1));
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<int>::max());
  if (!index || !count || *count < 1 || *count > kMax || *index >= *count) {
    throw OptionError("--shard expects I/N with 0 <= I < N, got '" + text + "'");
  }
  return Shard{static_cast<int>(*index), static_cast<int>(*count)};
}

}  // namespace accel::scenario
