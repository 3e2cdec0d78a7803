#include "core/device_ids.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace mockdev::core {
namespace {

bool all_hex(std::string_view s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

int parse_hex(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 16 + hex_value(c);
  return v;
}

// FNV-1a, 64 bit: a stable hash for generated identifiers.
std::uint64_t fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t h = 14695981039346656037ULL ^ seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// MurmurHash3's 64-bit finaliser: every input bit changes every output bit with
// probability about 1/2. FNV-1a alone mixes its high bits poorly for short keys (every
// generated UUID used to start "GPU-63bd2"), so its result is passed through this.
std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

bool is_uuid(std::string_view text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  std::string_view body = text.substr(prefix.size());
  if (body.size() != 36) return false;
  constexpr int kGroups[] = {8, 4, 4, 4, 12};
  std::size_t pos = 0;
  for (int i = 0; i < 5; ++i) {
    if (!all_hex(body.substr(pos, kGroups[i]))) return false;
    pos += kGroups[i];
    if (i < 4) {
      if (body[pos] != '-') return false;
      ++pos;
    }
  }
  return true;
}

bool is_pci_bus_id(std::string_view text) {
  return text.size() == 16 && all_hex(text.substr(0, 8)) && text[8] == ':' &&
         all_hex(text.substr(9, 2)) && text[11] == ':' && all_hex(text.substr(12, 2)) &&
         text[14] == '.' && text[15] >= '0' && text[15] <= '7';
}

std::string generate_uuid(std::string_view machine_name, int index) {
  std::string key = std::string(machine_name) + "/" + std::to_string(index);
  std::uint64_t hi = mix64(fnv1a(key, 0x6d6f636bULL));
  std::uint64_t lo = mix64(fnv1a(key, 0x64657600ULL));
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string generate_pci_bus_id(int index) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "00000000:%02X:00.0", 0x10 + index);
  return buf;
}

std::optional<std::array<unsigned char, 16>> uuid_bytes(std::string_view uuid) {
  std::string_view prefix = uuid.substr(0, 4);
  if ((prefix != "GPU-" && prefix != "MIG-") || !is_uuid(uuid, prefix)) return std::nullopt;
  std::array<unsigned char, 16> bytes{};
  std::size_t n = 0;
  int high = -1;
  for (char c : uuid.substr(4)) {
    if (c == '-') continue;
    if (high < 0) {
      high = hex_value(c);
    } else {
      bytes[n++] = static_cast<unsigned char>(high * 16 + hex_value(c));
      high = -1;
    }
  }
  return bytes;
}

int pci_bus_number(std::string_view pci_bus_id) {
  return is_pci_bus_id(pci_bus_id) ? parse_hex(pci_bus_id.substr(9, 2)) : -1;
}

int pci_device_number(std::string_view pci_bus_id) {
  return is_pci_bus_id(pci_bus_id) ? parse_hex(pci_bus_id.substr(12, 2)) : -1;
}

}  // namespace mockdev::core
