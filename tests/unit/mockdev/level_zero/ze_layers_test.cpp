// One broad walk over the driver (init, drivers, devices, sub-devices, properties, memory,
// queue groups, legacy Sysman) that ctest runs three times: directly, with the loader's
// intercept mode (ZE_ENABLE_LOADER_INTERCEPT=1: handles are the loader's objects) and with
// the validation layer stacked over the mock (ZE_ENABLE_VALIDATION_LAYER=1 +
// ZE_ENABLE_PARAMETER_VALIDATION=1). Handle values are never compared across modes (the
// loader's intercept layer hands out its own).

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include "ze_fixture.h"

namespace {

using ze_test::devices_of;
using ze_test::init_driver;
using ze_test::kTileBytes;
using ze_test::subdevices_of;
using V = std::vector<std::string>;

class ZeLayers : public ze_test::ZeTest {};

TEST_F(ZeLayers, WalkEveryDriverQuery) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  ze_driver_handle_t driver = init_driver();
  ze_api_version_t version{};
  ASSERT_EQ(zeDriverGetApiVersion(driver, &version), ZE_RESULT_SUCCESS);
  EXPECT_EQ(version, ZE_API_VERSION_1_4);
  ze_driver_properties_t dp{};
  dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  ASSERT_EQ(zeDriverGetProperties(driver, &dp), ZE_RESULT_SUCCESS);
  auto cards = devices_of(driver);
  EXPECT_EQ(ze_test::labels(cards), (V{"c0", "c1"}));
  auto tiles = subdevices_of(cards[0]);
  EXPECT_EQ(ze_test::labels(tiles), (V{"c0t0", "c0t1"}));
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
  ASSERT_EQ(zeDeviceGetProperties(tiles[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.timerResolution, 19200122u);
  EXPECT_EQ(p.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE, ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE);
  ze_device_memory_properties_t mem{};
  mem.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  std::uint32_t count = 1;
  ASSERT_EQ(zeDeviceGetMemoryProperties(cards[1], &count, &mem), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mem.totalSize, 2 * kTileBytes);
  count = 0;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(cards[1], &count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 2u);
  ze_bool_t peer = 0;
  ASSERT_EQ(zeDeviceCanAccessPeer(cards[0], cards[1], &peer), ZE_RESULT_SUCCESS);
  EXPECT_EQ(peer, 1);
  std::uint64_t host = 0;
  std::uint64_t ticks = 0;
  ASSERT_EQ(zeDeviceGetGlobalTimestamps(cards[0], &host, &ticks), ZE_RESULT_SUCCESS);
  zes_device_properties_t sp{};
  sp.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(zesDeviceGetProperties(cards[1], &sp), ZE_RESULT_SUCCESS);
  EXPECT_EQ(sp.numSubdevices, 2u);
  std::uint32_t modules = 0;
  ASSERT_EQ(zesDeviceEnumMemoryModules(cards[1], &modules, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(modules, 2u);
}

}  // namespace
