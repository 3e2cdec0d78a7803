#pragma once
// Numbers typed by a user (an option, a variable): read strictly, so a value is never quietly
// wrapped (`-1` as 2^64 - 1), capped (a value above 2^64 - 1) or cut short (`12x` as 12).
// Each caller turns nullopt into its own message naming the option and the accepted range.
// Pure; thread-safe.

#include <cstdint>
#include <optional>
#include <string_view>

namespace accel::common {

// `text` as an unsigned decimal number: one or more digits and nothing else (no sign, no
// space, no base prefix), at most 2^64 - 1.
std::optional<std::uint64_t> parse_unsigned_decimal(std::string_view text);

}  // namespace accel::common
