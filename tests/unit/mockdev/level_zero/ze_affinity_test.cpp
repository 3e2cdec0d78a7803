// ZE_AFFINITY_MASK and ZE_FLAT_DEVICE_HIERARCHY as pure functions (mockdev/src/level_zero/
// ze_affinity.h): every row of the Level Zero Programming Guide's affinity-mask examples in
// both models, plus the mask's grammar and the hierarchy fallback. The same rows run through the
// real loader in ze_topology_test.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "level_zero/ze_affinity.h"

namespace {

using mockdev::level_zero::expose_devices;
using mockdev::level_zero::Exposure;
using mockdev::level_zero::Hierarchy;

// "c0[t0,t1]" for a card with sub-devices, "c0" for an untiled card, "c0t1" for a tile.
std::vector<std::string> render(const Exposure& e) {
  std::vector<std::string> out;
  for (const auto& d : e.devices) {
    std::string s = "c" + std::to_string(d.card);
    if (d.tile >= 0) {
      s += "t" + std::to_string(d.tile);
    } else if (!d.tiles.empty()) {
      s += "[";
      for (std::size_t i = 0; i < d.tiles.size(); ++i)
        s += (i ? ",t" : "t") + std::to_string(d.tiles[i]);
      s += "]";
    }
    out.push_back(s);
  }
  return out;
}

const std::vector<int> kTwoByTwo{2, 2};
using V = std::vector<std::string>;

V composite(const char* mask) {
  Exposure e = expose_devices(kTwoByTwo, Hierarchy::kComposite,
                              mask ? std::optional<std::string_view>(mask) : std::nullopt);
  EXPECT_EQ(e.error, "");
  return render(e);
}
V flat(const char* mask, Hierarchy h = Hierarchy::kFlat) {
  Exposure e = expose_devices(kTwoByTwo, h, mask ? std::optional<std::string_view>(mask) : std::nullopt);
  EXPECT_EQ(e.error, "");
  return render(e);
}

// The Programming Guide's mask examples, one test per row, both columns (COMBINED enumerates as
// FLAT).
TEST(ZeAffinityD9, Unset) {
  EXPECT_EQ(composite(nullptr), (V{"c0[t0,t1]", "c1[t0,t1]"}));
  EXPECT_EQ(flat(nullptr), (V{"c0t0", "c0t1", "c1t0", "c1t1"}));
  EXPECT_EQ(flat(nullptr, Hierarchy::kCombined), (V{"c0t0", "c0t1", "c1t0", "c1t1"}));
}
TEST(ZeAffinityD9, Zero) {
  EXPECT_EQ(composite("0"), (V{"c0[t0,t1]"}));
  EXPECT_EQ(flat("0"), (V{"c0t0"}));
}
TEST(ZeAffinityD9, One) {
  EXPECT_EQ(composite("1"), (V{"c1[t0,t1]"}));
  EXPECT_EQ(flat("1"), (V{"c0t1"}));
}
TEST(ZeAffinityD9, ZeroOne) {
  EXPECT_EQ(composite("0,1"), (V{"c0[t0,t1]", "c1[t0,t1]"}));
  EXPECT_EQ(flat("0,1"), (V{"c0t0", "c0t1"}));
}
TEST(ZeAffinityD9, CardDotTile) {
  EXPECT_EQ(composite("0.1"), (V{"c0t1"}));  // the tile alone, as a device
  EXPECT_EQ(flat("0.1"), V{});               // nothing visible
  EXPECT_EQ(flat("0.1", Hierarchy::kCombined), V{});
}
TEST(ZeAffinityD9, BothTilesOfCardOneReversed) {
  EXPECT_EQ(composite("1.1,1.0"), (V{"c1[t0,t1]"}));
  EXPECT_EQ(flat("1.1,1.0"), V{});
}
TEST(ZeAffinityD9, Three) {
  EXPECT_EQ(composite("3"), V{});
  EXPECT_EQ(flat("3"), (V{"c1t1"}));
}
TEST(ZeAffinityD9, TwoZeroKeepsPhysicalOrder) {
  EXPECT_EQ(composite("2,0"), (V{"c0[t0,t1]"}));
  EXPECT_EQ(flat("2,0"), (V{"c0t0", "c1t0"}));
}

// Empty = everything; blanks after commas; duplicates shown once; order never changes.
TEST(ZeAffinityGrammar, EmptyMaskShowsEverything) {
  EXPECT_EQ(composite(""), (V{"c0[t0,t1]", "c1[t0,t1]"}));
}
TEST(ZeAffinityGrammar, SpacesAfterCommasAndDuplicates) {
  EXPECT_EQ(flat("3, 1, 3"), (V{"c0t1", "c1t1"}));
}
TEST(ZeAffinityGrammar, NumbersAreReadInBaseZero) {  // strtoul base 0
  EXPECT_EQ(flat("0x2"), (V{"c1t0"}));
  EXPECT_EQ(flat("03"), (V{"c1t1"}));
}
TEST(ZeAffinityGrammar, CardPlusOneOfItsTilesIsTheWholeCard) {
  EXPECT_EQ(composite("0,0.1"), (V{"c0[t0,t1]"}));
}
TEST(ZeAffinityGrammar, TileOutOfRangeIsSkipped) {
  EXPECT_EQ(composite("0.2,1"), (V{"c1[t0,t1]"}));
}
TEST(ZeAffinityGrammar, UntiledCardHasNoTileZero) {
  Exposure e = expose_devices({0, 2}, Hierarchy::kComposite, "0.0,1.0");
  EXPECT_EQ(render(e), (V{"c1t0"}));
  EXPECT_EQ(render(expose_devices({0, 2}, Hierarchy::kFlat, "0,2")), (V{"c0", "c1t1"}));
}
TEST(ZeAffinityGrammar, ThreeLevelsMakeTheMaskInvalid) {
  Exposure e = expose_devices(kTwoByTwo, Hierarchy::kComposite, "0,1.0.1");
  EXPECT_TRUE(e.devices.empty());
  EXPECT_EQ(e.error, "ZE_AFFINITY_MASK entry '1.0.1': expected N or N.M (card.tile), got three levels");
}
TEST(ZeAffinityGrammar, NonNumericEntryMakesTheMaskInvalid) {
  Exposure e = expose_devices(kTwoByTwo, Hierarchy::kFlat, "0,gpu1");
  EXPECT_TRUE(e.devices.empty());
  EXPECT_EQ(e.error, "ZE_AFFINITY_MASK entry 'gpu1': expected a number or number.number");
  EXPECT_EQ(expose_devices(kTwoByTwo, Hierarchy::kFlat, "- 1").error,
            "ZE_AFFINITY_MASK entry '- 1': expected a number or number.number");
}
// A sign is part of the number as strtoul reads it: -1 is out of range and skipped, the rest
// stays (the known defect `1,-1,0` hid every device).
TEST(ZeAffinityGrammar, SignedEntryIsOutOfRangeAndSkipped) {
  EXPECT_EQ(render(expose_devices(kTwoByTwo, Hierarchy::kFlat, "1,-1,0")), (V{"c0t0", "c0t1"}));
  EXPECT_EQ(composite("1,-1,0"), (V{"c0[t0,t1]", "c1[t0,t1]"}));
  EXPECT_EQ(render(expose_devices(kTwoByTwo, Hierarchy::kFlat, "+1")), (V{"c0t1"}));
  EXPECT_EQ(composite("0.-1,1"), (V{"c1[t0,t1]"}));
  const Exposure only_negative = expose_devices(kTwoByTwo, Hierarchy::kFlat, "-1");
  EXPECT_EQ(only_negative.error, "");
  EXPECT_TRUE(only_negative.devices.empty());
  EXPECT_EQ(render(expose_devices(kTwoByTwo, Hierarchy::kFlat, "0,99999999999999999999999")),
            (V{"c0t0"}));
}

// Exact upper-case names; anything else is the machine's default.
TEST(ZeHierarchy, ExactNamesOnly) {
  using mockdev::level_zero::parse_hierarchy;
  using mockdev::level_zero::resolve_hierarchy;
  EXPECT_EQ(parse_hierarchy("FLAT"), Hierarchy::kFlat);
  EXPECT_EQ(parse_hierarchy("COMBINED"), Hierarchy::kCombined);
  EXPECT_EQ(parse_hierarchy("COMPOSITE"), Hierarchy::kComposite);
  EXPECT_EQ(parse_hierarchy("flat"), std::nullopt);
  EXPECT_EQ(resolve_hierarchy(nullptr, Hierarchy::kFlat), Hierarchy::kFlat);
  EXPECT_EQ(resolve_hierarchy("flat", Hierarchy::kComposite), Hierarchy::kComposite);
  EXPECT_EQ(resolve_hierarchy("FLAT", Hierarchy::kComposite), Hierarchy::kFlat);
}

}  // namespace
