#pragma once
// Which devices the mock Level Zero driver exposes: ZE_FLAT_DEVICE_HIERARCHY,
// ZE_AFFINITY_MASK and ZE_ENABLE_PCI_ID_DEVICE_ORDER (Level Zero Programming Guide;
// intel/compute-runtime's parseAffinityMask), as pure functions over the cards' tile counts,
// so every row of the guide's affinity-mask examples is a unit test with no driver state.
// ze_devices.cpp turns the result into handles at zeInit.
//
// Note [Affinity mask grammar]
// Entries are split on ','; blanks before an entry are skipped ("spaces after commas");
// empty entries are ignored. An entry is `N` or `N.M`; each number is read as C's strtoul
// reads base 0 (`0x1` and `010` are numbers; a sign is part of the number, so `-1` is the
// largest unsigned value and `+1` is 1; a value too large for strtoul is its largest value).
// Out-of-range entries are skipped, a negative one included (`1,-1,0` is `1,0`), and so
// is every `N.M` in FLAT and COMBINED. Entries never reorder devices: the result
// is in the driver's order. What Intel's driver leaves unspecified or aborts on (a
// non-numeric entry, a three-level `N.M.K`) makes the whole mask invalid here: zeInit then
// fails with UNINITIALIZED and the reason names the entry, instead of guessing
// (tests must not rely on the real driver for these). [inferred]

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mockdev::level_zero {

enum class Hierarchy { kComposite, kFlat, kCombined };

// "COMPOSITE", "FLAT", "COMBINED" (exact, upper case); nullopt for anything else.
std::optional<Hierarchy> parse_hierarchy(std::string_view text);
std::string_view hierarchy_name(Hierarchy hierarchy);
// The mode in force: the variable when it names a mode, else the machine's default
// (any other string falls back to the default, as Intel's driver does).
Hierarchy resolve_hierarchy(const char* env_value, Hierarchy machine_default);

// One device zeDeviceGet returns: a whole card (tile == -1) spanning `tiles` of its tiles
// (all of them, or the ones the mask named; empty for an untiled card), or one tile.
struct Exposed {
  int card = 0;            // position in the driver's card order
  int tile = -1;           // -1: the card itself
  std::vector<int> tiles;  // card only: the tiles it exposes as sub-devices (never exactly 1)
  bool operator==(const Exposed&) const = default;
};

struct Exposure {
  std::vector<Exposed> devices;  // in the driver's order
  std::string error;             // non-empty: the mask is invalid (Note [Affinity mask grammar])
};

// What zeDeviceGet returns for cards with `tiles_per_card[i]` tiles (0 = untiled), in the
// driver's card order, under `hierarchy` and the mask (nullopt or empty: everything).
Exposure expose_devices(const std::vector<int>& tiles_per_card, Hierarchy hierarchy,
                        std::optional<std::string_view> mask);

}  // namespace mockdev::level_zero
