// Fuzzer: the mock Level Zero driver's device exposure (mockdev/src/level_zero/
// ze_affinity.h): ZE_FLAT_DEVICE_HIERARCHY through resolve_hierarchy and ZE_AFFINITY_MASK
// through expose_devices (Note [Affinity mask grammar]). Any value must give either an
// error naming a ZE_AFFINITY_MASK entry and no device, or devices that exist, each once,
// in the driver's order, a card never exposing exactly one tile as sub-devices.
//
// Input: byte 0 picks the card count (1 + byte % 8); bytes 1..count each card's tiles
// (0 = untiled, else 2 + byte % 7, as machine files allow); the next byte picks the
// machine's default hierarchy; then the ZE_FLAT_DEVICE_HIERARCHY value up to the first
// NUL (absent when there is none), and the rest is the mask.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "level_zero/ze_affinity.h"

namespace {

using mockdev::level_zero::Exposed;
using mockdev::level_zero::Hierarchy;

[[noreturn]] void finding(const char* what, std::string_view mask) {
  std::fprintf(stderr, "ze_affinity: %s (mask '%.*s')\n", what, static_cast<int>(mask.size()),
               mask.data());
  std::abort();
}

// The position of a device in the driver's order: card-major, the card before its tiles.
long order_of(const Exposed& d) { return d.card * 100L + (d.tile < 0 ? 0 : d.tile + 1); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::size_t at = 0;
  const int cards = 1 + data[at++] % 8;
  std::vector<int> tiles;
  for (int c = 0; c < cards; ++c) {
    const int byte = at < size ? data[at++] : 0;
    tiles.push_back(byte % 2 == 0 ? 0 : 2 + byte % 7);
  }
  const Hierarchy machine_default = static_cast<Hierarchy>(at < size ? data[at++] % 3 : 0);
  const std::string_view rest(reinterpret_cast<const char*>(data) + at, size - at);
  const std::size_t nul = rest.find('\0');
  const std::string env = nul == std::string_view::npos ? "" : std::string(rest.substr(0, nul));
  const std::string_view mask = nul == std::string_view::npos ? rest : rest.substr(nul + 1);

  const Hierarchy hierarchy = mockdev::level_zero::resolve_hierarchy(
      nul == std::string_view::npos ? nullptr : env.c_str(), machine_default);
  const std::optional<Hierarchy> named = mockdev::level_zero::parse_hierarchy(env);
  if (nul != std::string_view::npos && hierarchy != named.value_or(machine_default)) {
    finding("ZE_FLAT_DEVICE_HIERARCHY resolved to neither its value nor the default", mask);
  }

  const auto exposure = mockdev::level_zero::expose_devices(tiles, hierarchy, mask);
  if (!exposure.error.empty()) {
    if (!exposure.devices.empty()) finding("an invalid mask exposed devices", mask);
    if (exposure.error.rfind("ZE_AFFINITY_MASK entry '", 0) != 0) {
      finding("an error that does not name the entry", mask);
    }
    return 0;
  }
  long previous = -1;
  for (const Exposed& d : exposure.devices) {
    if (d.card < 0 || d.card >= cards) finding("a device of no card", mask);
    const int card_tiles = tiles[static_cast<std::size_t>(d.card)];
    if (d.tile >= card_tiles || d.tile < -1) finding("a tile the card does not have", mask);
    if (d.tile >= 0 && !d.tiles.empty()) finding("a tile with sub-devices", mask);
    if (d.tiles.size() == 1) finding("a card exposing exactly one sub-device", mask);
    if (hierarchy != Hierarchy::kComposite && !d.tiles.empty()) {
      finding("sub-devices outside COMPOSITE", mask);
    }
    int last_tile = -1;
    for (int t : d.tiles) {
      if (t <= last_tile || t >= card_tiles) finding("sub-devices out of order or range", mask);
      last_tile = t;
    }
    if (order_of(d) <= previous) finding("devices out of the driver's order, or repeated", mask);
    previous = order_of(d);
  }
  // An empty mask hides nothing.
  if (mask.empty()) {
    std::size_t expected = 0;
    for (int t : tiles) expected += hierarchy == Hierarchy::kComposite || t == 0 ? 1 : t;
    if (exposure.devices.size() != expected) finding("an empty mask hid a device", mask);
  }
  return 0;
}
