// Result codes by name, per API (parse_result_code, api_name in mockdev/machine.h; the
// helpers of machine/api_codes.h).

#include "machine/api_codes.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <iterator>

#include "accel_abi/cuda_driver.h"
#include "accel_common/edit_distance.h"
#include "accel_abi/nvml.h"
#include "cuda/entry_points.h"
#include "machine/level_zero_names.h"
#include "nvml/entry_points.h"

namespace mockdev {
namespace {

std::optional<int> cuda_code_by_name(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return value;
  ACCEL_CUDA_RESULTS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  return std::nullopt;
}

std::optional<int> nvml_code_by_name(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return value;
  ACCEL_NVML_RETURNS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  return std::nullopt;
}

std::optional<int> ze_code_by_name(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return static_cast<int>(value);
  MOCKDEV_ZE_RESULTS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  return std::nullopt;
}

constexpr std::string_view kZeEntryPoints[] = {
#define MOCKDEV_ZE_NAME(name) #name,
    MOCKDEV_ZE_ENTRY_POINTS(MOCKDEV_ZE_NAME)
#undef MOCKDEV_ZE_NAME
};

std::optional<int> code_by_name(Api api, std::string_view text) {
  switch (api) {
    case Api::kCuda:
      return cuda_code_by_name(text);
    case Api::kNvml:
      return nvml_code_by_name(text);
    case Api::kLevelZero:
      return ze_code_by_name(text);
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

std::string_view api_name(Api api) {
  switch (api) {
    case Api::kCuda:
      return "cuda";
    case Api::kNvml:
      return "nvml";
    case Api::kLevelZero:
      return "level_zero";
  }
  return "unknown";
}

std::string_view vendor_name(Vendor vendor) { return vendor == Vendor::kIntel ? "intel" : "nvidia"; }

std::optional<int> parse_result_code(std::string_view text) {
  if (auto code = cuda_code_by_name(text)) return code;
  if (auto code = nvml_code_by_name(text)) return code;
  if (auto code = ze_code_by_name(text)) return code;
  return code_by_number(text);
}

std::optional<int> parse_result_code(Api api, std::string_view text) {
  if (auto code = code_by_name(api, text)) return code;
  if (api == Api::kLevelZero) {
    if (auto code = code_by_hex(text)) return code;
  }
  return code_by_number(text);
}

namespace machine_file {

std::string_view code_family(Api api) {
  switch (api) {
    case Api::kCuda:
      return "CUDA";
    case Api::kNvml:
      return "NVML";
    case Api::kLevelZero:
      return "ZE";
  }
  return "unknown";
}

std::vector<std::string_view> level_zero_entry_points() {
  return {std::begin(kZeEntryPoints), std::end(kZeEntryPoints)};
}

std::optional<EntryPointName> resolve_entry_point(std::string_view name) {
  for (const cuda::EntryInfo& e : cuda::kEntries) {
    if (e.symbol == name) return EntryPointName{e.symbol, Api::kCuda};
  }
  for (const nvml::EntryInfo& e : nvml::kEntries) {
    if (e.symbol == name) return EntryPointName{e.symbol, Api::kNvml};
  }
  for (std::string_view symbol : kZeEntryPoints) {
    if (symbol == name) return EntryPointName{symbol, Api::kLevelZero};
  }
  for (const cuda::EntryInfo& e : cuda::kEntries) {
    if (e.name == name) return EntryPointName{e.symbol, Api::kCuda};
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
  for (const cuda::EntryInfo& e : cuda::kEntries) {
    // cuGetProcAddress_v2's base name is the exported cuGetProcAddress, its own entry.
    consider(e.symbol == "cuGetProcAddress_v2" ? e.symbol : e.name, e.symbol);
  }
  for (const nvml::EntryInfo& e : nvml::kEntries) consider(e.symbol, e.symbol);
  for (std::string_view symbol : kZeEntryPoints) consider(symbol, symbol);
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
  for (Api api : {Api::kCuda, Api::kNvml, Api::kLevelZero}) {
    if (api_name(api) == name) return api;
  }
  return std::nullopt;
}

}  // namespace machine_file
}  // namespace mockdev
