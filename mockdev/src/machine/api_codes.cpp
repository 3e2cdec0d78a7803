// Result codes and entry points by name, per API (parse_result_code in mockdev/machine.h;
// the helpers of machine/api_codes.h), read from the vendor registry's rows
// (core/vendor_registry.h): nothing here names an API.

#include "machine/api_codes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <iterator>

#include "accel_common/edit_distance.h"
#include "core/vendor_registry.h"

namespace mockdev {
namespace {

std::optional<int> code_by_name(Api api, std::string_view text) {
  for (const core::ResultCodeName& code : core::api_row(api).codes) {
    if (code.name == text) return code.value;
  }
  return std::nullopt;
}

// ze_result_t values are written in hex everywhere (0x78000001), so Level Zero codes may
// be too: "0x" then hex digits, up to 0x7fffffff (ze_result_t is a 32-bit enum whose
// values are all below 2^31).
std::optional<int> code_by_hex(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  std::uint32_t value = 0;
  const char* first = text.data() + 2;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value, 16);
  if (ec != std::errc() || ptr != last || value > 0x7fffffffU) return std::nullopt;
  return static_cast<int>(value);
}

std::optional<int> code_by_number(std::string_view text) {
  int value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;  // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int> parse_result_code(std::string_view text) {
  for (const core::ApiRow& row : core::kApiRows) {
    if (auto code = code_by_name(row.api, text)) return code;
  }
  return code_by_number(text);
}

std::optional<int> parse_result_code(Api api, std::string_view text) {
  if (auto code = code_by_name(api, text)) return code;
  if (core::api_row(api).hex_codes) {
    if (auto code = code_by_hex(text)) return code;
  }
  return code_by_number(text);
}

namespace machine_file {

std::string_view code_family(Api api) { return core::api_row(api).code_family; }

std::vector<std::string_view> entry_point_symbols(Api api) {
  std::vector<std::string_view> symbols;
  for (const core::EntryPointName& e : core::api_row(api).entry_points) symbols.push_back(e.symbol);
  return symbols;
}

std::vector<std::string_view> level_zero_entry_points() {
  return entry_point_symbols(Api::kLevelZero);
}

std::optional<EntryPointName> resolve_entry_point(std::string_view name) {
  // Exported symbols of every API first, then base names: a symbol wins.
  for (const core::ApiRow& row : core::kApiRows) {
    for (const core::EntryPointName& e : row.entry_points) {
      if (e.symbol == name) return EntryPointName{e.symbol, row.api};
    }
  }
  for (const core::ApiRow& row : core::kApiRows) {
    for (const core::EntryPointName& e : row.entry_points) {
      if (e.base == name) return EntryPointName{e.symbol, row.api};
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> close_entry_points(std::string_view name) {
  // One candidate per entry point, near by its nearer name; a close CUDA entry point is
  // listed by its base name, then its exported symbol.
  struct Candidate {
    std::size_t distance;
    std::string_view first;
    std::string_view second;  // empty when the entry point has one name
  };
  std::vector<Candidate> close;
  const std::size_t limit = accel::common::close_distance_limit(name);
  auto consider = [&](std::string_view base, std::string_view symbol) {
    const std::size_t d = std::min(accel::common::edit_distance(name, base),
                                   accel::common::edit_distance(name, symbol));
    if (d <= limit) close.push_back({d, base, base == symbol ? std::string_view() : symbol});
  };
  // (cuGetProcAddress_v2's row lists it under its own name: cuda/registration.cpp.)
  for (const core::ApiRow& row : core::kApiRows) {
    for (const core::EntryPointName& e : row.entry_points) consider(e.base, e.symbol);
  }
  std::sort(close.begin(), close.end(), [](const Candidate& a, const Candidate& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.first < b.first;
  });
  std::vector<std::string_view> result;
  for (std::size_t i = 0; i < close.size() && i < 3; ++i) {
    result.push_back(close[i].first);
    if (!close[i].second.empty()) result.push_back(close[i].second);
  }
  return result;
}

std::string expected_entry_point(std::string_view name) {
  const std::vector<std::string_view> close = close_entry_points(name);
  if (close.empty()) {
    return "an entry point of the mock's APIs, by exported symbol (cuMemAlloc_v2) or base "
           "name (cuMemAlloc)";
  }
  std::string list;
  for (std::string_view c : close) {
    if (!list.empty()) list += ", ";
    list += c;
  }
  return "an entry point of the mock's APIs (closest: " + list + ")";
}

std::optional<Api> api_from_name(std::string_view name) {
  for (const core::ApiRow& row : core::kApiRows) {
    if (row.name == name) return row.api;
  }
  return std::nullopt;
}

}  // namespace machine_file
}  // namespace mockdev
