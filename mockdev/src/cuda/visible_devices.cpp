#include "cuda/visible_devices.h"

#include <cctype>
#include <cstdint>
#include <string>
#include <unordered_set>

namespace mockdev::cuda {
namespace {

std::vector<std::string_view> split(std::string_view value) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    parts.push_back(value.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

// strtoul's reading cut to a 32-bit int (Note [Driver visible-device rules]); nullopt for an
// entry that ends the list (no digits, or a negative int).
std::optional<int> parse_ordinal(std::string_view entry) {
  std::size_t i = 0;
  while (i < entry.size() && std::isspace(static_cast<unsigned char>(entry[i]))) ++i;
  bool negative = false;
  if (i < entry.size() && (entry[i] == '+' || entry[i] == '-')) negative = entry[i++] == '-';
  const std::size_t first_digit = i;
  std::uint64_t value = 0;
  bool saturated = false;
  for (; i < entry.size() && std::isdigit(static_cast<unsigned char>(entry[i])); ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(entry[i] - '0');
    if (!saturated && value > (UINT64_MAX - digit) / 10) saturated = true;
    if (!saturated) value = value * 10 + digit;
  }
  if (i == first_digit) return std::nullopt;
  if (saturated) value = UINT64_MAX;  // strtoul's ERANGE answer, negated or not
  if (negative) value = ~value + 1;   // strtoul negates in unsigned arithmetic
  const auto ordinal = static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
  if (ordinal < 0) return std::nullopt;
  return ordinal;
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Whether the hex digits of `uuid` (after its 4-character prefix) start with `digits`,
// without regard to case. No digits select nothing.
bool uuid_starts_with(const std::string& uuid, std::string_view digits) {
  if (digits.empty() || uuid.size() < 4 || uuid.size() - 4 < digits.size()) return false;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (lower(uuid[4 + i]) != lower(digits[i])) return false;
  }
  return true;
}

// `candidates`: the physical indices of the devices CUDA serves (its NVIDIA devices).
VisibleSelection select_uuid_list(const std::vector<std::string_view>& entries,
                                  const std::vector<DeviceSpec>& devices,
                                  const std::vector<int>& candidates_by_ordinal) {
  const std::string_view prefix = entries.front().substr(0, 4);
  const bool mig = prefix == "MIG-";
  std::vector<std::string_view> candidates;
  std::unordered_set<std::string_view> seen;
  for (std::string_view entry : entries) {
    if (entry.substr(0, 4) != prefix) break;
    if (!seen.insert(entry).second) return {{}, true};
    candidates.push_back(entry);
  }
  VisibleSelection out;
  std::vector<bool> selected(devices.size(), false);
  for (std::string_view candidate : candidates) {
    const std::string_view digits = candidate.substr(4);
    int match = -1;
    int matches = 0;
    for (int i : candidates_by_ordinal) {
      const DeviceSpec& d = devices[static_cast<std::size_t>(i)];
      const std::string& uuid = mig && !d.mig_uuid.empty() ? d.mig_uuid : d.uuid;
      if (uuid_starts_with(uuid, digits)) {
        match = i;
        ++matches;
      }
    }
    if (matches != 1) break;
    if (selected[static_cast<std::size_t>(match)]) return {{}, true};
    selected[static_cast<std::size_t>(match)] = true;
    out.devices.push_back(match);
  }
  return out;
}

}  // namespace

VisibleSelection select_visible_devices(std::optional<std::string_view> value,
                                        const std::vector<DeviceSpec>& devices) {
  // CUDA serves the NVIDIA devices only, in file order: ordinal n is the n-th NVIDIA
  // device, and a UUID names NVIDIA devices only; the selection is of physical indices.
  std::vector<int> nvidia;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].vendor == Vendor::kNvidia) nvidia.push_back(static_cast<int>(i));
  }
  const int count = static_cast<int>(nvidia.size());
  VisibleSelection out;
  if (!value) {
    out.devices = nvidia;
    return out;
  }
  const std::vector<std::string_view> entries = split(*value);
  const std::string_view head = entries.front().substr(0, 4);
  if (head == "GPU-" || head == "MIG-") return select_uuid_list(entries, devices, nvidia);
  std::vector<int> parsed;
  std::unordered_set<int> seen;
  for (std::string_view entry : entries) {
    const std::optional<int> ordinal = parse_ordinal(entry);
    if (!ordinal) break;
    if (!seen.insert(*ordinal).second) return {{}, true};
    parsed.push_back(*ordinal);
  }
  for (int ordinal : parsed) {
    if (ordinal >= count) break;
    out.devices.push_back(nvidia[static_cast<std::size_t>(ordinal)]);
  }
  return out;
}

std::vector<int> resolve_visible_devices(std::optional<std::string_view> value,
                                         const std::vector<DeviceSpec>& devices) {
  return select_visible_devices(value, devices).devices;
}

}  // namespace mockdev::cuda
