#pragma once
// Text a user wrote, made safe to print: every reader that quotes a value in an error
// ("got '...'") and every table that shows a name goes through these, so a control
// character in a file (a NUL, a newline, an ESC that starts a terminal colour sequence)
// can neither break a table row nor rewrite the terminal. Pure; thread-safe; never throws
// except std::bad_alloc.

#include <cstddef>
#include <string>
#include <string_view>

namespace accel::common {

// The offset of the first control character in `text` (C0: 0x00-0x1F, and DEL 0x7F),
// or std::string_view::npos when it has none. Tabs count: a name never needs one.
std::size_t find_control_character(std::string_view text) noexcept;

// `text` with every control character written as an escape: "\n", "\t", "\r", "\0", and
// "\xHH" for the others ("\x1b" for ESC); a backslash stays as it is. Text without
// control characters is returned unchanged.
std::string printable(std::string_view text);

}  // namespace accel::common
