// The Intel presets (scenarios/machines/2xmax1550.yaml, laptop_igpu.yaml,
// mixed_vendors.yaml) through the real loader: what the runtime's and the conformance
// suite's tests see with MOCKDEV_MACHINE=<preset>.

#include <level_zero/ze_api.h>

#include <cstdlib>
#include <cstring>

#include "ze_fixture.h"

namespace {

using ze_test::devices_of;
using ze_test::init_driver;
using ze_test::subdevices_of;

class ZePresets : public ze_test::ZeTest {
 protected:
  void use_preset(const char* name) {
    setenv("MOCKDEV_MACHINE", name, 1);
    mockdev::control::reset_from_environment();
  }
  ze_device_properties_t properties(ze_device_handle_t d) {
    ze_device_properties_t p{};
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
    EXPECT_EQ(zeDeviceGetProperties(d, &p), ZE_RESULT_SUCCESS);
    return p;
  }
};

// Max 1550 defaults to FLAT: four tile devices of 64 GiB.
TEST_F(ZePresets, TwoMax1550IsFlatByDefault) {
  use_preset("2xmax1550");
  auto devices = devices_of(init_driver());
  ASSERT_EQ(devices.size(), 4u);
  ze_device_properties_t p = properties(devices[3]);
  EXPECT_STREQ(p.name, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(p.deviceId, 0x0bd5u);
  EXPECT_EQ(p.timerResolution, 19200122u);
  ze_device_memory_properties_t m{};
  m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  std::uint32_t count = 1;
  ASSERT_EQ(zeDeviceGetMemoryProperties(devices[3], &count, &m), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.totalSize, std::uint64_t{64} << 30);
  EXPECT_STREQ(m.name, "HBM");
  // All four tiles differ (every sub-device has its own uuid).
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j)
      EXPECT_NE(std::memcmp(properties(devices[i]).uuid.id, properties(devices[j]).uuid.id, 16), 0)
          << i << " vs " << j;
}

TEST_F(ZePresets, TwoMax1550Composite) {
  use_preset("2xmax1550");
  setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE", 1);
  auto cards = devices_of(init_driver());
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(subdevices_of(cards[0]).size(), 2u);
}

TEST_F(ZePresets, LaptopHasOneIntegratedGpu) {
  use_preset("laptop_igpu");
  auto devices = devices_of(init_driver());
  ASSERT_EQ(devices.size(), 1u);
  ze_device_properties_t p = properties(devices[0]);
  EXPECT_EQ(p.flags, static_cast<ze_device_property_flags_t>(ZE_DEVICE_PROPERTY_FLAG_INTEGRATED));
  EXPECT_EQ(p.timerResolution, 12000048u);  // 1e9 / 83.333, truncated
  EXPECT_EQ(p.maxMemAllocSize, 4294959104u);
  // The system's memory, named as Intel's driver names it outside Xe-HP/HPC: "DDR", not "HBM".
  ze_device_memory_ext_properties_t ext{};
  ext.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_EXT_PROPERTIES;
  ze_device_memory_properties_t m{};
  m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  m.pNext = &ext;
  std::uint32_t count = 1;
  ASSERT_EQ(zeDeviceGetMemoryProperties(devices[0], &count, &m), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(m.name, "DDR");
  EXPECT_EQ(ext.type, ZE_DEVICE_MEMORY_EXT_TYPE_LPDDR4);
}

// Only the Intel devices, in machine order; NVIDIA ones never appear.
TEST_F(ZePresets, MixedVendorsShowsTheIntelDevicesOnly) {
  use_preset("mixed_vendors");
  auto devices = devices_of(init_driver());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_STREQ(properties(devices[0]).name, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(subdevices_of(devices[0]).size(), 2u);
  EXPECT_STREQ(properties(devices[1]).name, "Intel(R) Arc(TM) A770 Graphics");
  EXPECT_EQ(properties(devices[1]).deviceId, 0x56a0u);
  // topology default none: the two Intel cards (physical 1 and 3) are not peers.
  ze_bool_t peer = 1;
  ASSERT_EQ(zeDeviceCanAccessPeer(devices[0], devices[1], &peer), ZE_RESULT_SUCCESS);
  EXPECT_EQ(peer, 0);
}

}  // namespace
