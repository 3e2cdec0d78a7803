// Device properties through the real loader (ze_device_properties_t and the
// other property queries, their stype/pNext chains).

#include <level_zero/ze_api.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ze_fixture.h"

namespace {

using ze_test::devices_of;
using ze_test::init_driver;
using ze_test::kTileBytes;
using ze_test::subdevices_of;

class ZeProperties : public ze_test::ZeTest {
 protected:
  ze_device_properties_t properties(ze_device_handle_t d, ze_structure_type_t stype) {
    ze_device_properties_t p{};
    p.stype = stype;
    EXPECT_EQ(zeDeviceGetProperties(d, &p), ZE_RESULT_SUCCESS);
    return p;
  }
};

TEST_F(ZeProperties, CardAndTileFields) {
  auto cards = devices_of(init_driver());
  ASSERT_EQ(cards.size(), 2u);
  ze_device_properties_t card = properties(cards[1], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  EXPECT_EQ(card.type, ZE_DEVICE_TYPE_GPU);
  EXPECT_EQ(card.vendorId, 0x8086u);
  EXPECT_EQ(card.deviceId, 0x0bd6u);
  EXPECT_EQ(card.flags, 0u);
  EXPECT_EQ(card.coreClockRate, 1600u);
  EXPECT_EQ(card.maxMemAllocSize, kTileBytes);  // capped at one tile (as Intel's driver)
  EXPECT_EQ(card.maxHardwareContexts, 65536u);
  EXPECT_EQ(card.maxCommandQueuePriority, 0u);
  EXPECT_EQ(card.numThreadsPerEU, 8u);
  EXPECT_EQ(card.physicalEUSimdWidth, 16u);
  EXPECT_EQ(card.numEUsPerSubslice, 8u);
  EXPECT_EQ(card.numSubslicesPerSlice, 64u);
  EXPECT_EQ(card.numSlices, 2u);  // a root scales over its two tiles
  EXPECT_EQ(card.timestampValidBits, 36u);
  EXPECT_EQ(card.kernelTimestampValidBits, 32u);
  EXPECT_STREQ(card.name, "Intel(R) Data Center GPU Max 1550");
  auto tiles = subdevices_of(cards[1]);
  ASSERT_EQ(tiles.size(), 2u);
  ze_device_properties_t t0 = properties(tiles[0], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  ze_device_properties_t t1 = properties(tiles[1], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  EXPECT_EQ(t0.numSlices, 1u);
  // Every sub-device has its own uuid (ze_device_properties_t::uuid).
  EXPECT_NE(std::memcmp(t0.uuid.id, card.uuid.id, sizeof card.uuid.id), 0);
  EXPECT_NE(std::memcmp(t0.uuid.id, t1.uuid.id, sizeof t0.uuid.id), 0);
}

// ns per tick for the plain stype, ticks per second for _1_2, both truncated.
TEST_F(ZeProperties, TimerResolutionUnitFollowsTheCallersStype) {
  auto cards = devices_of(init_driver());
  EXPECT_EQ(properties(cards[0], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES).timerResolution, 52u);
  EXPECT_EQ(properties(cards[0], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2).timerResolution,
            19200122u);  // 1e9 / 52.083
}

// The caller's stype and pNext are never written; unknown links are left alone.
TEST_F(ZeProperties, CallerChainIsLeftAlone) {
  auto cards = devices_of(init_driver());
  struct Unknown {
    ze_structure_type_t stype;
    void* pNext;
    std::uint64_t payload;
  } unknown{static_cast<ze_structure_type_t>(0x1000f), nullptr, 0x5a5a5a5a5a5a5a5aull};
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
  p.pNext = &unknown;
  ASSERT_EQ(zeDeviceGetProperties(cards[0], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.stype, ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2);
  EXPECT_EQ(p.pNext, &unknown);
  EXPECT_EQ(unknown.stype, static_cast<ze_structure_type_t>(0x1000f));
  EXPECT_EQ(unknown.pNext, nullptr);
  EXPECT_EQ(unknown.payload, 0x5a5a5a5a5a5a5a5aull);
}

TEST_F(ZeProperties, IntegratedLaptopGpuWithoutFp64) {
  use_machine(ze_test::laptop());
  auto devices = devices_of(init_driver());
  ASSERT_EQ(devices.size(), 1u);
  ze_device_properties_t p = properties(devices[0], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES);
  EXPECT_EQ(p.flags, static_cast<ze_device_property_flags_t>(ZE_DEVICE_PROPERTY_FLAG_INTEGRATED));
  EXPECT_EQ(p.maxMemAllocSize, std::uint64_t{8} << 30);  // untiled: the card's memory
  EXPECT_EQ(p.numSlices, 1u);
  EXPECT_TRUE(subdevices_of(devices[0]).empty());
  ze_device_module_properties_t m{};
  m.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetModuleProperties(devices[0], &m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.flags & ZE_DEVICE_MODULE_FLAG_FP64, 0u);
  EXPECT_EQ(m.fp64flags, 0u);
}

TEST_F(ZeProperties, Fp64FlagsOnADataCentreCard) {
  auto cards = devices_of(init_driver());
  ze_device_module_properties_t m{};
  m.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetModuleProperties(cards[0], &m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.flags & ZE_DEVICE_MODULE_FLAG_FP64, ZE_DEVICE_MODULE_FLAG_FP64);
  EXPECT_NE(m.fp64flags & ZE_DEVICE_FP_FLAG_FMA, 0u);
}

TEST_F(ZeProperties, MaxMemAllocSizeFromTheMachineFile) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.devices[0].level_zero.max_mem_alloc_bytes = (std::uint64_t{4} << 30) - 8192;
  use_machine(m);
  auto cards = devices_of(init_driver());
  EXPECT_EQ(properties(cards[0], ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES).maxMemAllocSize,
            (std::uint64_t{4} << 30) - 8192);
}

// One entry; a card reports the memory of the tiles it spans, a tile its own; the
// ext link is filled, an unknown one skipped.
TEST_F(ZeProperties, MemoryPropertiesPerCardAndTile) {
  auto cards = devices_of(init_driver());
  std::uint32_t count = 0;
  ASSERT_EQ(zeDeviceGetMemoryProperties(cards[0], &count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  struct Unknown {
    ze_structure_type_t stype;
    void* pNext;
    std::uint32_t payload;
  } unknown{static_cast<ze_structure_type_t>(0x7ff00001), nullptr, 77};
  ze_device_memory_ext_properties_t ext{};
  ext.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_EXT_PROPERTIES;
  ext.pNext = &unknown;
  ze_device_memory_properties_t p[2]{};
  p[0].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  p[0].pNext = &ext;
  count = 2;
  ASSERT_EQ(zeDeviceGetMemoryProperties(cards[0], &count, p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(p[0].totalSize, 2 * kTileBytes);
  EXPECT_EQ(p[0].pNext, &ext);
  EXPECT_EQ(ext.stype, ZE_STRUCTURE_TYPE_DEVICE_MEMORY_EXT_PROPERTIES);
  EXPECT_EQ(ext.pNext, &unknown);
  EXPECT_EQ(ext.physicalSize, 2 * kTileBytes);
  EXPECT_EQ(ext.type, ZE_DEVICE_MEMORY_EXT_TYPE_HBM2);
  EXPECT_EQ(unknown.payload, 77u);
  auto tiles = subdevices_of(cards[0]);
  ze_device_memory_properties_t tile{};
  tile.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  count = 1;
  ASSERT_EQ(zeDeviceGetMemoryProperties(tiles[1], &count, &tile), ZE_RESULT_SUCCESS);
  EXPECT_EQ(tile.totalSize, kTileBytes);
  count = 1;
  EXPECT_EQ(zeDeviceGetMemoryProperties(tiles[1], &count, nullptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// A tile exposed alone by the mask (COMPOSITE `1.0`) reports one tile's memory.
TEST_F(ZeProperties, CompositeTileAloneReportsTileMemory) {
  setenv("ZE_AFFINITY_MASK", "1.0", 1);
  auto devices = devices_of(init_driver());
  ASSERT_EQ(devices.size(), 1u);
  ze_device_memory_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  std::uint32_t count = 1;
  ASSERT_EQ(zeDeviceGetMemoryProperties(devices[0], &count, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.totalSize, kTileBytes);
}

TEST_F(ZeProperties, CommandQueueGroups) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.devices[0].level_zero.copy_fill_pattern_limit = 16;
  use_machine(m);
  auto cards = devices_of(init_driver());
  std::uint32_t count = 0;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(cards[0], &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 2u);
  ze_command_queue_group_properties_t g[2]{};
  g[0].stype = g[1].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(cards[0], &count, g), ZE_RESULT_SUCCESS);
  EXPECT_EQ(g[0].flags & (ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY),
            static_cast<ze_command_queue_group_property_flags_t>(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                                                                 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY));
  EXPECT_EQ(g[0].maxMemoryFillPatternSize, SIZE_MAX);
  EXPECT_EQ(g[0].numQueues, 4u);
  EXPECT_EQ(g[1].flags, static_cast<ze_command_queue_group_property_flags_t>(ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY));
  EXPECT_EQ(g[1].maxMemoryFillPatternSize, 16u);
  EXPECT_EQ(g[1].numQueues, 7u);
  ze_command_queue_group_properties_t first{};
  count = 1;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(cards[0], &count, &first), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(first.numQueues, 4u);
}

TEST_F(ZeProperties, ComputeAndCacheProperties) {
  auto cards = devices_of(init_driver());
  ze_device_compute_properties_t c{};
  c.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetComputeProperties(cards[0], &c), ZE_RESULT_SUCCESS);
  EXPECT_EQ(c.maxTotalGroupSize, 1024u);
  EXPECT_EQ(c.numSubGroupSizes, 2u);
  EXPECT_EQ(c.subGroupSizes[0], 16u);
  std::uint32_t count = 0;
  ASSERT_EQ(zeDeviceGetCacheProperties(cards[0], &count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
}

// Peers: tiles of a card always; cards per the machine's topology.
TEST_F(ZeProperties, PeersFollowTheTopology) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.topology.default_link = mockdev::PeerLink::kNone;
  use_machine(m);
  auto cards = devices_of(init_driver());
  auto tiles = subdevices_of(cards[0]);
  ze_bool_t can = 1;
  ASSERT_EQ(zeDeviceCanAccessPeer(cards[0], cards[1], &can), ZE_RESULT_SUCCESS);
  EXPECT_EQ(can, 0);
  ASSERT_EQ(zeDeviceCanAccessPeer(tiles[0], tiles[1], &can), ZE_RESULT_SUCCESS);
  EXPECT_EQ(can, 1);
  ze_device_p2p_properties_t p2p{};
  p2p.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES;
  ASSERT_EQ(zeDeviceGetP2PProperties(cards[0], cards[1], &p2p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p2p.flags, 0u);
}

TEST_F(ZeProperties, CardsArePeersOverTheDefaultPcieLink) {
  auto cards = devices_of(init_driver());
  ze_bool_t can = 0;
  ASSERT_EQ(zeDeviceCanAccessPeer(cards[0], cards[1], &can), ZE_RESULT_SUCCESS);
  EXPECT_EQ(can, 1);
  ze_device_p2p_properties_t p2p{};
  p2p.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES;
  ASSERT_EQ(zeDeviceGetP2PProperties(cards[0], cards[1], &p2p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p2p.flags, static_cast<ze_device_p2p_property_flags_t>(ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS));
}

// Host = the virtual host clock; device = start + elapsed / period, masked to
// the valid bits (the start is set 10 ticks before the 36-bit wrap).
TEST_F(ZeProperties, GlobalTimestampsFromTheVirtualClockWithValidBits) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.devices[0].level_zero.timestamp_start_ticks = (std::uint64_t{1} << 36) - 10;
  m.devices[2].level_zero.timestamp_valid_bits = 64;
  m.devices[2].level_zero.timestamp_start_ticks = (std::uint64_t{1} << 36) - 10;
  use_machine(m);
  auto cards = devices_of(init_driver());
  std::uint64_t host = 0;
  std::uint64_t device = 0;
  ASSERT_EQ(zeDeviceGetGlobalTimestamps(cards[0], &host, &device), ZE_RESULT_SUCCESS);
  const auto ticks = static_cast<std::uint64_t>(std::floor(static_cast<double>(host) / 52.083));
  EXPECT_EQ(device, ((std::uint64_t{1} << 36) - 10 + ticks) & ((std::uint64_t{1} << 36) - 1));
  EXPECT_LT(device, std::uint64_t{1} << 36);
  std::uint64_t host1 = 0;
  std::uint64_t device1 = 0;
  ASSERT_EQ(zeDeviceGetGlobalTimestamps(cards[1], &host1, &device1), ZE_RESULT_SUCCESS);
  const auto ticks1 = static_cast<std::uint64_t>(std::floor(static_cast<double>(host1) / 52.083));
  EXPECT_EQ(device1, (std::uint64_t{1} << 36) - 10 + ticks1);  // 64 valid bits: no wrap
}

TEST_F(ZeProperties, DeviceStatusIsSuccess) {
  auto cards = devices_of(init_driver());
  EXPECT_EQ(zeDeviceGetStatus(cards[0]), ZE_RESULT_SUCCESS);
}

}  // namespace
