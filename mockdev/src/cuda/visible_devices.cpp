#include "cuda/visible_devices.h"

#include <cctype>
#include <climits>
#include <string>
#include <unordered_set>

namespace mockdev::cuda {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view value) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = value.find(',', start);
    parts.push_back(trim(value.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

// strtol-like: optional sign, then digits; trailing text ignored. nullopt for an entry that
// ends the list: no digits, a negative value, or a value above INT_MAX. "-0" is 0.
std::optional<int> parse_ordinal(std::string_view entry) {
  std::size_t i = 0;
  bool negative = false;
  if (i < entry.size() && (entry[i] == '+' || entry[i] == '-')) negative = entry[i++] == '-';
  const std::size_t first_digit = i;
  long long value = 0;
  bool too_large = false;
  for (; i < entry.size() && std::isdigit(static_cast<unsigned char>(entry[i])); ++i) {
    if (!too_large) value = value * 10 + (entry[i] - '0');
    if (value > INT_MAX) too_large = true;  // checked each digit: value never overflows
  }
  if (i == first_digit || too_large || (negative && value != 0)) return std::nullopt;
  return static_cast<int>(value);
}

std::vector<int> resolve_uuid_list(const std::vector<std::string_view>& entries,
                                   const std::vector<DeviceSpec>& devices) {
  const std::string_view prefix = entries.front().substr(0, 4);
  const bool mig = prefix == "MIG-";
  std::vector<std::string_view> candidates;
  std::unordered_set<std::string_view> seen;
  for (std::string_view entry : entries) {
    if (entry.substr(0, 4) != prefix) break;
    if (!seen.insert(entry).second) return {};
    candidates.push_back(entry);
  }
  std::vector<int> ordinals;
  std::vector<bool> selected(devices.size(), false);
  for (std::string_view candidate : candidates) {
    int match = -1;
    int matches = 0;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const std::string& uuid = mig ? devices[i].mig_uuid : devices[i].uuid;
      if (!uuid.empty() && std::string_view(uuid).substr(0, candidate.size()) == candidate) {
        match = static_cast<int>(i);
        ++matches;
      }
    }
    if (matches != 1) break;
    if (selected[static_cast<std::size_t>(match)]) return {};
    selected[static_cast<std::size_t>(match)] = true;
    ordinals.push_back(match);
  }
  return ordinals;
}

}  // namespace

std::vector<int> resolve_visible_devices(std::optional<std::string_view> value,
                                         const std::vector<DeviceSpec>& devices) {
  const int count = static_cast<int>(devices.size());
  std::vector<int> ordinals;
  if (!value) {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
    return ordinals;
  }
  const std::vector<std::string_view> entries = split(*value);
  const std::string_view head = entries.front().substr(0, 4);
  if (head == "GPU-" || head == "MIG-") return resolve_uuid_list(entries, devices);
  std::vector<int> parsed;
  std::unordered_set<int> seen;
  for (std::string_view entry : entries) {
    std::optional<int> ordinal = parse_ordinal(entry);
    if (!ordinal) break;
    if (!seen.insert(*ordinal).second) return {};
    parsed.push_back(*ordinal);
  }
  for (int ordinal : parsed) {
    if (ordinal >= count) break;
    ordinals.push_back(ordinal);
  }
  return ordinals;
}

}  // namespace mockdev::cuda
