// CUDA_VISIBLE_DEVICES parsing with PyTorch's rules (torch/cuda/__init__.py).
#include "backends/cuda/cuda_visibility.h"

#include <cctype>
#include <climits>
#include <unordered_set>

namespace accel::detail::cuda {

namespace {

constexpr int kUnsetOrdinalCount = 64;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// Deliberate difference from PyTorch (cuda_visibility.h): a sign without digits is an
// invalid entry here; PyTorch raises ValueError.
// strtoul-like: optional sign, then digits, the rest ignored. -1 when there are no digits
// or the value does not fit an int: such an entry is invalid and ends the list, as the
// driver does (saturating instead made distinct huge ordinals look like duplicates).
long long parse_ordinal(std::string_view text) {
  std::size_t at = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    at = 1;
  }
  std::size_t digits_begin = at;
  long long value = 0;
  bool out_of_range = false;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
    value = value * 10 + (text[at] - '0');
    if (value > INT_MAX) {
      out_of_range = true;
      value = INT_MAX;  // keeps the arithmetic bounded; the entry is invalid anyway
    }
    ++at;
  }
  if (at == digits_begin || out_of_range) return -1;
  return negative ? -value : value;
}

VisibleDevices parse_uuid_list(std::string_view value, std::string_view prefix) {
  VisibleDevices out;
  out.is_uuid_list = true;
  std::unordered_set<std::string_view> seen;  // views into `value`: linear, not quadratic
  for (std::string_view element : split(value, ',')) {
    if (!seen.insert(element).second) {
      out.uuids.clear();
      return out;
    }
    if (element.substr(0, prefix.size()) != prefix) break;
    out.uuids.emplace_back(element);
  }
  return out;
}

}  // namespace

VisibleDevices parse_visible_devices(std::optional<std::string_view> value) {
  VisibleDevices out;
  if (!value) {
    for (int i = 0; i < kUnsetOrdinalCount; ++i) out.ordinals.push_back(i);
    return out;
  }
  for (std::string_view prefix : {std::string_view("GPU-"), std::string_view("MIG-")}) {
    if (value->substr(0, prefix.size()) == prefix) return parse_uuid_list(*value, prefix);
  }
  std::unordered_set<long long> seen;
  for (std::string_view element : split(*value, ',')) {
    long long ordinal = parse_ordinal(trim(element));
    if (!seen.insert(ordinal).second) {
      out.ordinals.clear();
      return out;
    }
    if (ordinal < 0) break;
    out.ordinals.push_back(static_cast<int>(ordinal));
  }
  return out;
}

std::vector<int> transform_uuid_to_ordinals(const std::vector<std::string>& candidates,
                                            const std::vector<std::string>& uuids) {
  std::vector<int> ordinals;
  std::unordered_set<int> mapped;
  for (const std::string& candidate : candidates) {
    int match = -1;
    for (std::size_t i = 0; i < uuids.size(); ++i) {
      if (uuids[i].compare(0, candidate.size(), candidate) != 0) continue;
      if (match != -1) return ordinals;  // ambiguous prefix: stop here
      match = static_cast<int>(i);
    }
    if (match == -1) break;  // unknown prefix: stop here
    if (!mapped.insert(match).second) return {};
    ordinals.push_back(match);
  }
  return ordinals;
}

int truncate_to_raw_count(const std::vector<int>& ordinals, int raw_count) {
  if (raw_count <= 0) return raw_count;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    if (ordinals[i] >= raw_count) return static_cast<int>(i);
  }
  return static_cast<int>(ordinals.size());
}

}  // namespace accel::detail::cuda
