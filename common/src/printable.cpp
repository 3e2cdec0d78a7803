// Control characters made visible (accel_common/printable.h).
#include "accel_common/printable.h"

namespace accel::common {
namespace {

bool is_control(char c) noexcept {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

}  // namespace

std::size_t find_control_character(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_control(text[i])) return i;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view text) {
  if (find_control_character(text) == std::string_view::npos) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (!is_control(c)) {
      out += c;
      continue;
    }
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\0':
        out += "\\0";
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        out += "\\x";
        out += kHex[byte >> 4];
        out += kHex[byte & 0xf];
      }
    }
  }
  return out;
}

}  // namespace accel::common
