// zeInit, drivers and device enumeration through the real loader (zeInit,
// zeDriverGet, zeDeviceGet and their count protocol, hierarchy and affinity mask).

#include <level_zero/ze_api.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ze_fixture.h"

namespace {

using ze_test::devices_of;
using ze_test::init_driver;
using ze_test::labels;
using ze_test::subdevices_of;
using V = std::vector<std::string>;

class ZeInit : public ze_test::ZeTest {};

// Idempotent; every call, first included, reaches the driver (loader 1.8.12) and
// gets the cached first result.
TEST_F(ZeInit, SucceedsAndIsIdempotent) {
  EXPECT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeInit(ZE_INIT_FLAG_GPU_ONLY), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
  const auto status = mockdev::control::level_zero::status();
  EXPECT_TRUE(status.initialized);
  EXPECT_EQ(status.init_result, ZE_RESULT_SUCCESS);
  EXPECT_EQ(status.init_failure, "");
  EXPECT_EQ(status.hierarchy, "COMPOSITE");
  EXPECT_EQ(status.devices, 2u);
  EXPECT_GE(mockdev::control::call_count("zeInit"), 3u);
}

// Intel's zeInit and loader 1.8.12: a first zeInit without the GPU bit fails the driver; loader
// 1.8.12 then unloads it for good while keeping its pointers. -z nodelete keeps the code mapped:
// later calls return errors instead of crashing.
TEST_F(ZeInit, VpuOnlyFirstFailsAndLaterCallsFailCleanly) {
  EXPECT_NE(zeInit(ZE_INIT_FLAG_VPU_ONLY), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(mockdev::control::level_zero::status().init_attempted);  // refused before call_once
  EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  EXPECT_NE(zeDriverGet(&count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 0u);
}

// No visible GPU through the machine file's fault: the permission scenario.
TEST_F(ZeInit, MachineFileFaultFailsInitWithItsCode) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.faults.level_zero_init_error = ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS;
  use_machine(m);
  EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
  const auto status = mockdev::control::level_zero::status();
  EXPECT_EQ(status.init_result, ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS);
  EXPECT_EQ(status.init_failure, "the machine file's fault schedule fails zeInit");
  std::uint32_t count = 0;
  EXPECT_NE(zeDriverGet(&count, nullptr), ZE_RESULT_SUCCESS);  // no crash after the unload
}

TEST_F(ZeInit, NoIntelDeviceFailsInit) {
  use_machine(ze_test::nvidia_only());
  EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
  const auto status = mockdev::control::level_zero::status();
  EXPECT_EQ(status.init_result, ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(status.init_failure, "the machine has no Intel device");
}

TEST_F(ZeInit, MaskSelectingNothingFailsInit) {
  setenv("ZE_AFFINITY_MASK", "3", 1);
  EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
  const auto status = mockdev::control::level_zero::status();
  EXPECT_EQ(status.init_result, ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(status.init_failure, "ZE_AFFINITY_MASK='3' selects no device under COMPOSITE hierarchy");
}

TEST_F(ZeInit, MalformedMaskFailsInitNamingTheEntry) {
  setenv("ZE_AFFINITY_MASK", "0, 1.0.1", 1);
  EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::level_zero::status().init_failure,
            "ZE_AFFINITY_MASK entry ' 1.0.1': expected N or N.M (card.tile), got three levels");
}

class ZeDriverQueries : public ze_test::ZeTest {};

// The count protocol with Intel's code for a null array.
TEST_F(ZeDriverQueries, DriverGetFollowsTheCountProtocol) {
  ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  ASSERT_EQ(zeDriverGet(&count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  ze_driver_handle_t drivers[3] = {nullptr, nullptr, nullptr};
  count = 3;
  ASSERT_EQ(zeDriverGet(&count, drivers), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_NE(drivers[0], nullptr);
  EXPECT_EQ(drivers[1], nullptr);
  count = 1;
  EXPECT_EQ(zeDriverGet(&count, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ze_driver_handle_t again = nullptr;
  count = 1;
  ASSERT_EQ(zeDriverGet(&count, &again), ZE_RESULT_SUCCESS);
  EXPECT_EQ(again, drivers[0]);
}

TEST_F(ZeDriverQueries, PropertiesVersionAndExtensions) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.level_zero.driver_version = 0x01071234;
  use_machine(m);
  ze_driver_handle_t driver = init_driver();
  ze_driver_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  p.pNext = nullptr;
  ASSERT_EQ(zeDriverGetProperties(driver, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.driverVersion, 0x01071234u);
  EXPECT_EQ(p.stype, ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES);
  EXPECT_EQ(p.pNext, nullptr);
  bool nonzero = false;
  for (auto b : p.uuid.id) nonzero = nonzero || b != 0;
  EXPECT_TRUE(nonzero);
  ze_api_version_t version{};
  ASSERT_EQ(zeDriverGetApiVersion(driver, &version), ZE_RESULT_SUCCESS);
  EXPECT_EQ(version, ZE_API_VERSION_1_4);
  std::uint32_t count = 7;
  ASSERT_EQ(zeDriverGetExtensionProperties(driver, &count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 0u);
}

class ZeDevices : public ze_test::ZeTest {};

TEST_F(ZeDevices, OnlyIntelCardsInMachineOrderWithStableHandles) {
  ze_driver_handle_t driver = init_driver();
  auto first = devices_of(driver);
  EXPECT_EQ(labels(first), (V{"c0", "c1"}));  // the NVIDIA device between them never shows
  EXPECT_EQ(devices_of(driver), first);
}

// The count protocol: partial fetch and Intel's null-array codes.
TEST_F(ZeDevices, CountProtocolAndNullArrays) {
  ze_driver_handle_t driver = init_driver();
  std::uint32_t count = 1;
  ze_device_handle_t one = nullptr;
  ASSERT_EQ(zeDeviceGet(driver, &count, &one), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(ze_test::label(one), "c0");
  count = 2;
  EXPECT_EQ(zeDeviceGet(driver, &count, nullptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  count = 2;
  EXPECT_EQ(zeDeviceGetSubDevices(one, &count, nullptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  count = 1;
  ze_device_handle_t sub = nullptr;
  ASSERT_EQ(zeDeviceGetSubDevices(one, &count, &sub), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(ze_test::label(sub), "c0t0");
}

// Hierarchy table, COMPOSITE: cards with tiles; SUBDEVICE only on handles from GetSubDevices.
TEST_F(ZeDevices, CompositeSubDevicesCarryTheSubdeviceFlag) {
  ze_driver_handle_t driver = init_driver();
  auto cards = devices_of(driver);
  ASSERT_EQ(cards.size(), 2u);
  auto tiles = subdevices_of(cards[1]);
  EXPECT_EQ(labels(tiles), (V{"c1t0", "c1t1"}));
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetProperties(cards[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, 0u);
  EXPECT_EQ(p.subdeviceId, 0u);
  ASSERT_EQ(zeDeviceGetProperties(tiles[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE);
  EXPECT_EQ(p.subdeviceId, 1u);
  EXPECT_TRUE(subdevices_of(tiles[0]).empty());
}

// Hierarchy table, FLAT: tiles as devices, no sub-devices, no SUBDEVICE flag.
TEST_F(ZeDevices, FlatShowsTilesWithoutTheSubdeviceFlag) {
  setenv("ZE_FLAT_DEVICE_HIERARCHY", "FLAT", 1);
  ze_driver_handle_t driver = init_driver();
  auto devices = devices_of(driver);
  EXPECT_EQ(labels(devices), (V{"c0t0", "c0t1", "c1t0", "c1t1"}));
  for (ze_device_handle_t d : devices) {
    ze_device_properties_t p{};
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    ASSERT_EQ(zeDeviceGetProperties(d, &p), ZE_RESULT_SUCCESS);
    EXPECT_EQ(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, 0u);
    EXPECT_TRUE(subdevices_of(d).empty());
  }
  EXPECT_EQ(mockdev::control::level_zero::status().hierarchy, "FLAT");
}

// Hierarchy table, COMBINED: enumerates as FLAT, but the tiles say SUBDEVICE with their index.
TEST_F(ZeDevices, CombinedShowsTilesWithTheSubdeviceFlag) {
  setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMBINED", 1);
  ze_driver_handle_t driver = init_driver();
  auto devices = devices_of(driver);
  EXPECT_EQ(labels(devices), (V{"c0t0", "c0t1", "c1t0", "c1t1"}));
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetProperties(devices[3], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE);
  EXPECT_EQ(p.subdeviceId, 1u);
  EXPECT_TRUE(subdevices_of(devices[3]).empty());
}

// The machine's default applies when the variable is unset or not an exact name.
TEST_F(ZeDevices, HierarchyDefaultsToTheMachineAndIgnoresOtherSpellings) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.level_zero.default_hierarchy = "FLAT";
  use_machine(m);
  setenv("ZE_FLAT_DEVICE_HIERARCHY", "composite", 1);
  EXPECT_EQ(devices_of(init_driver()).size(), 4u);
  EXPECT_EQ(mockdev::control::level_zero::status().hierarchy, "FLAT");
}

// ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 sorts cards by PCI bus id before the mask applies.
TEST_F(ZeDevices, PciOrderSortsCardsBeforeTheMask) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.devices[0].pci_bus_id = "0000:9a:00.0";
  m.devices[2].pci_bus_id = "0000:3a:00.0";
  use_machine(m);
  setenv("ZE_ENABLE_PCI_ID_DEVICE_ORDER", "1", 1);
  setenv("ZE_AFFINITY_MASK", "0", 1);
  EXPECT_EQ(labels(devices_of(init_driver())), (V{"c1"}));
}

TEST_F(ZeDevices, MachineOrderWithoutPciOrdering) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.devices[0].pci_bus_id = "0000:9a:00.0";
  m.devices[2].pci_bus_id = "0000:3a:00.0";
  use_machine(m);
  EXPECT_EQ(labels(devices_of(init_driver())), (V{"c0", "c1"}));
}

// The mask examples through the loader: one test per row and model.
struct MaskRow {
  const char* name;
  const char* hierarchy;
  const char* mask;           // nullptr: unset
  V devices;                  // labels of zeDeviceGet, "c0[c0t0,c0t1]" with sub-devices
  bool init_fails = false;
};

std::string describe(ze_device_handle_t d) {
  std::string s = ze_test::label(d);
  auto subs = subdevices_of(d);
  if (subs.empty()) return s;
  s += "[";
  for (std::size_t i = 0; i < subs.size(); ++i) s += (i ? "," : "") + ze_test::label(subs[i]);
  return s + "]";
}

class ZeMaskRows : public ze_test::ZeTest, public ::testing::WithParamInterface<MaskRow> {};

TEST_P(ZeMaskRows, MatchesTheSpecTable) {
  const MaskRow& row = GetParam();
  setenv("ZE_FLAT_DEVICE_HIERARCHY", row.hierarchy, 1);
  if (row.mask != nullptr) setenv("ZE_AFFINITY_MASK", row.mask, 1);
  if (row.init_fails) {
    EXPECT_NE(zeInit(0), ZE_RESULT_SUCCESS);
    EXPECT_EQ(mockdev::control::level_zero::status().init_result, ZE_RESULT_ERROR_UNINITIALIZED);
    return;
  }
  ze_driver_handle_t driver = init_driver();
  V seen;
  for (ze_device_handle_t d : devices_of(driver)) seen.push_back(describe(d));
  EXPECT_EQ(seen, row.devices);
}

INSTANTIATE_TEST_SUITE_P(
    D9, ZeMaskRows,
    ::testing::Values(
        MaskRow{"CompositeUnset", "COMPOSITE", nullptr, {"c0[c0t0,c0t1]", "c1[c1t0,c1t1]"}},
        MaskRow{"FlatUnset", "FLAT", nullptr, {"c0t0", "c0t1", "c1t0", "c1t1"}},
        MaskRow{"Composite0", "COMPOSITE", "0", {"c0[c0t0,c0t1]"}},
        MaskRow{"Flat0", "FLAT", "0", {"c0t0"}},
        MaskRow{"Composite1", "COMPOSITE", "1", {"c1[c1t0,c1t1]"}},
        MaskRow{"Flat1", "FLAT", "1", {"c0t1"}},
        MaskRow{"Composite01", "COMPOSITE", "0,1", {"c0[c0t0,c0t1]", "c1[c1t0,c1t1]"}},
        MaskRow{"Flat01", "FLAT", "0,1", {"c0t0", "c0t1"}},
        MaskRow{"CompositeTile", "COMPOSITE", "0.1", {"c0t1"}},
        MaskRow{"FlatTile", "FLAT", "0.1", {}, true},
        MaskRow{"CombinedTile", "COMBINED", "0.1", {}, true},
        MaskRow{"CompositeBothTiles", "COMPOSITE", "1.1,1.0", {"c1[c1t0,c1t1]"}},
        MaskRow{"FlatBothTiles", "FLAT", "1.1,1.0", {}, true},
        MaskRow{"Composite3", "COMPOSITE", "3", {}, true}, MaskRow{"Flat3", "FLAT", "3", {"c1t1"}},
        MaskRow{"Combined3", "COMBINED", "3", {"c1t1"}},
        MaskRow{"Composite20", "COMPOSITE", "2,0", {"c0[c0t0,c0t1]"}},
        MaskRow{"Flat20", "FLAT", "2,0", {"c0t0", "c1t0"}},
        // D-8: strtoul reads -1 as the largest index, out of range and skipped.
        MaskRow{"CompositeSigned", "COMPOSITE", "1,-1,0", {"c0[c0t0,c0t1]", "c1[c1t0,c1t1]"}},
        MaskRow{"FlatSigned", "FLAT", "1,-1,0", {"c0t0", "c0t1"}}),
    [](const ::testing::TestParamInfo<MaskRow>& info) { return std::string(info.param.name); });

}  // namespace
