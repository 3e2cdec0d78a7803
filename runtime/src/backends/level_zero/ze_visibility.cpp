// ZE_AFFINITY_MASK / ZE_FLAT_DEVICE_HIERARCHY syntax and PyTorch's mask parse
// (Note [Level Zero visibility variables]).
#include "backends/level_zero/ze_visibility.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "spi/environment.h"

namespace accel::detail::level_zero {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }

bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// One number as the driver's strtoul(base 0) reads it, but whole: an optional sign, then decimal
// digits, or 0x / 0X followed by at least one hex digit. A signed entry is a number too:
// strtoul negates it into a huge index, which the driver skips as out of range (D-8), and
// PyTorch's own parse skips negative entries (decision 208).
bool is_driver_number(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  if (text.empty()) return false;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return std::all_of(text.begin() + 2, text.end(), is_hex_digit);
  }
  return std::all_of(text.begin(), text.end(), is_digit);
}

// N or N.M after leading blanks.
bool is_mask_entry(std::string_view entry) {
  while (!entry.empty() && is_blank(entry.front())) entry.remove_prefix(1);
  const std::size_t dot = entry.find('.');
  if (dot == std::string_view::npos) return is_driver_number(entry);
  return is_driver_number(entry.substr(0, dot)) && is_driver_number(entry.substr(dot + 1));
}

std::string_view strip(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Python's int() on a stripped token, within int range: [+-]digits.
std::optional<int> python_int(std::string_view token) {
  std::string_view digits = token;
  bool negative = false;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), is_digit)) return std::nullopt;
  long long value = 0;
  for (char c : digits) {
    value = value * 10 + (c - '0');
    if (value > 1'000'000'000) value = 1'000'000'000;  // far beyond any index: clamp
  }
  return static_cast<int>(negative ? -value : value);
}

}  // namespace

Status check_affinity_mask(std::optional<std::string_view> value) {
  if (!value || value->empty()) return Status();
  std::string_view rest = *value;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view entry = rest.substr(0, comma);
    if (!is_mask_entry(entry)) {
      return Status(ErrorKind::kConfig,
                    std::string(kAffinityMaskVariable) + "='" + std::string(*value) + "': entry '" +
                        std::string(entry) +
                        "' is not a device index (expected N or N.M, e.g. '0,1.0')");
    }
    if (comma == std::string_view::npos) return Status();
    rest.remove_prefix(comma + 1);
  }
}

Status check_flat_device_hierarchy(std::optional<std::string_view> value) {
  if (!value || value->empty()) return Status();
  if (*value == "COMPOSITE" || *value == "FLAT" || *value == "COMBINED") return Status();
  return Status(ErrorKind::kConfig,
                std::string(kHierarchyVariable) + "='" + std::string(*value) +
                    "' is not a device hierarchy (expected COMPOSITE, FLAT or COMBINED; the "
                    "driver would silently use its default)");
}

std::vector<int> pytorch_mask_indices(std::optional<std::string_view> value) {
  std::vector<int> indices;
  if (!value || strip(*value).empty()) {
    for (int i = 0; i < 128; ++i) indices.push_back(i);
    return indices;
  }
  std::string_view rest = *value;
  while (true) {
    const std::size_t comma = rest.find(',');
    std::optional<int> index = python_int(strip(rest.substr(0, comma)));
    if (!index) return {};
    if (*index >= 0 && std::find(indices.begin(), indices.end(), *index) == indices.end()) {
      indices.push_back(*index);
    }
    if (comma == std::string_view::npos) return indices;
    rest.remove_prefix(comma + 1);
  }
}

std::optional<std::string_view> environment_value(const char* variable) {
  const char* value = ::accel::detail::environment_variable(variable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string_view(value);
}

}  // namespace accel::detail::level_zero
