#include "engine/visible_devices.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mockdev::engine {
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

bool contains(const std::vector<int>& list, int value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// strtol-like: optional sign, then digits; trailing text ignored. nullopt without digits.
std::optional<long long> parse_ordinal(std::string_view entry) {
  std::size_t i = 0;
  bool negative = false;
  if (i < entry.size() && (entry[i] == '+' || entry[i] == '-')) negative = entry[i++] == '-';
  std::size_t first_digit = i;
  long long value = 0;
  while (i < entry.size() && std::isdigit(static_cast<unsigned char>(entry[i]))) {
    if (value < (1LL << 40)) value = value * 10 + (entry[i] - '0');  // saturates; huge = invalid
    ++i;
  }
  if (i == first_digit) return std::nullopt;
  return negative ? -value : value;
}

std::vector<int> resolve_uuid_list(const std::vector<std::string_view>& entries,
                                   const std::vector<DeviceSpec>& devices) {
  const std::string_view prefix = entries.front().substr(0, 4);
  const bool mig = prefix == "MIG-";
  std::vector<std::string_view> candidates;
  for (std::string_view entry : entries) {
    if (entry.substr(0, 4) != prefix) break;
    if (std::find(candidates.begin(), candidates.end(), entry) != candidates.end()) return {};
    candidates.push_back(entry);
  }
  std::vector<int> ordinals;
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
    if (contains(ordinals, match)) return {};
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
  std::vector<long long> parsed;
  for (std::string_view entry : entries) {
    std::optional<long long> ordinal = parse_ordinal(entry);
    if (!ordinal || *ordinal < 0) break;
    if (std::find(parsed.begin(), parsed.end(), *ordinal) != parsed.end()) return {};
    parsed.push_back(*ordinal);
  }
  for (long long ordinal : parsed) {
    if (ordinal >= count) break;
    ordinals.push_back(static_cast<int>(ordinal));
  }
  return ordinals;
}

}  // namespace mockdev::engine
