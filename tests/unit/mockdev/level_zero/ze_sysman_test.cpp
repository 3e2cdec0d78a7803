// Sysman: the legacy route through Debian's loader
// (ZES_ENABLE_SYSMAN=1, core handles as zes handles) and the zesInit route through the
// Sysman loader stand-in (zes_loader_shim.h), requested at 1.5 as a loader >= 1.9 does.

#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include <cstring>

#include "accel_abi/level_zero.h"
#include "core/engine_lock.h"
#include "core/memory.h"
#include "ze_fixture.h"

namespace {

namespace abi = accel::abi::level_zero;
using ze_test::devices_of;
using ze_test::init_driver;
using ze_test::kTileBytes;
using ze_test::subdevices_of;

class ZeSysmanLegacy : public ze_test::ZeTest {};

zes_device_properties_t sysman_properties(zes_device_handle_t d, abi::zes_device_ext_properties_t* ext,
                                          ze_result_t* result) {
  zes_device_properties_t p{};
  p.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  p.pNext = ext;
  p.core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  *result = zesDeviceGetProperties(d, &p);
  return p;
}

TEST_F(ZeSysmanLegacy, CoreHandlesWorkWithTheVariableSetBeforeInit) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  auto cards = devices_of(init_driver());
  EXPECT_EQ(mockdev::control::level_zero::status().sysman_route, "legacy");
  abi::zes_device_ext_properties_t ext{};
  ext.stype = abi::kZesStructureTypeDeviceExtProperties;
  ze_result_t r{};
  zes_device_properties_t p = sysman_properties(cards[1], &ext, &r);
  ASSERT_EQ(r, ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numSubdevices, 2u);
  EXPECT_EQ(p.core.deviceId, 0x0bd6u);
  EXPECT_STREQ(p.modelName, "Intel(R) Data Center GPU Max 1550");
  EXPECT_STREQ(p.serialNumber, "unknown");
  EXPECT_EQ(p.pNext, &ext);
  EXPECT_EQ(ext.type, 1);
  EXPECT_EQ(ext.flags, 0u);
  EXPECT_EQ(std::memcmp(ext.uuid, p.core.uuid.id, 16), 0);
}

TEST_F(ZeSysmanLegacy, WithoutTheVariableSysmanIsUninitialized) {
  auto cards = devices_of(init_driver());
  ze_result_t r{};
  sysman_properties(cards[0], nullptr, &r);
  EXPECT_EQ(r, ZE_RESULT_ERROR_UNINITIALIZED);
}

// INTEGRATED in core.flags and in the ext struct.
TEST_F(ZeSysmanLegacy, IntegratedFlagInBothPlaces) {
  use_machine(ze_test::laptop());
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  auto devices = devices_of(init_driver());
  abi::zes_device_ext_properties_t ext{};
  ext.stype = abi::kZesStructureTypeDeviceExtProperties;
  ze_result_t r{};
  zes_device_properties_t p = sysman_properties(devices[0], &ext, &r);
  ASSERT_EQ(r, ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numSubdevices, 0u);
  EXPECT_EQ(p.core.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED, ZE_DEVICE_PROPERTY_FLAG_INTEGRATED);
  EXPECT_EQ(ext.flags, abi::kZesDevicePropertyFlagIntegrated);
}

// One module per tile; free = size - usage.
TEST_F(ZeSysmanLegacy, MemoryModulesPerTileWithFreeFromUsage) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  auto cards = devices_of(init_driver());
  std::uint32_t count = 0;
  ASSERT_EQ(zesDeviceEnumMemoryModules(cards[0], &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 2u);
  zes_mem_handle_t modules[2]{};
  ASSERT_EQ(zesDeviceEnumMemoryModules(cards[0], &count, modules), ZE_RESULT_SUCCESS);
  zes_mem_handle_t again[2]{};
  ASSERT_EQ(zesDeviceEnumMemoryModules(cards[0], &count, again), ZE_RESULT_SUCCESS);
  EXPECT_EQ(again[1], modules[1]);
  zes_mem_properties_t props{};
  props.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
  ASSERT_EQ(zesMemoryGetProperties(modules[1], &props), ZE_RESULT_SUCCESS);
  EXPECT_EQ(props.location, ZES_MEM_LOC_DEVICE);
  EXPECT_EQ(props.onSubdevice, 1);
  EXPECT_EQ(props.subdeviceId, 1u);
  EXPECT_EQ(props.physicalSize, kTileBytes);
  zes_mem_state_t state{};
  state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
  ASSERT_EQ(zesMemoryGetState(modules[0], &state), ZE_RESULT_SUCCESS);
  EXPECT_EQ(state.size, kTileBytes);
  EXPECT_EQ(state.free, kTileBytes);
  {
    mockdev::core::EngineLock lock;  // 4 GiB on card 0 (physical device 0)
    ASSERT_TRUE(mockdev::core::allocate(mockdev::Api::kLevelZero, 0, std::uint64_t{4} << 30));
  }
  ASSERT_EQ(zesMemoryGetState(modules[0], &state), ZE_RESULT_SUCCESS);
  EXPECT_EQ(state.free, kTileBytes - (std::uint64_t{2} << 30));  // the card's usage per tile
  EXPECT_EQ(state.health, ZES_MEM_HEALTH_OK);
}

// A tile's module counts the device allocations made on that tile, and an even share of what
// its card holds beyond its tiles' own (Note [Memory per tile] in ze_state.h).
TEST_F(ZeSysmanLegacy, TileModulesCountTheAllocationsMadeOnThem) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  ze_driver_handle_t driver = init_driver();
  auto cards = devices_of(driver);
  auto tiles = subdevices_of(cards[0]);
  ASSERT_EQ(tiles.size(), 2u);
  std::uint32_t count = 2;
  zes_mem_handle_t modules[2]{};
  ASSERT_EQ(zesDeviceEnumMemoryModules(cards[0], &count, modules), ZE_RESULT_SUCCESS);
  const auto free_of = [&](int tile) {
    zes_mem_state_t state{};
    state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
    EXPECT_EQ(zesMemoryGetState(modules[tile], &state), ZE_RESULT_SUCCESS);
    return state.free;
  };
  ze_context_desc_t context_desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t context = nullptr;
  ASSERT_EQ(zeContextCreate(driver, &context_desc, &context), ZE_RESULT_SUCCESS);
  ze_device_mem_alloc_desc_t alloc_desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
  void* on_tile_1 = nullptr;
  ASSERT_EQ(zeMemAllocDevice(context, &alloc_desc, 8 * kGiB, 0, tiles[1], &on_tile_1),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(free_of(1), kTileBytes - 8 * kGiB);
  EXPECT_EQ(free_of(0), kTileBytes);  // the card's other tile is untouched
  void* on_card = nullptr;            // the root device: shared by both tiles
  ASSERT_EQ(zeMemAllocDevice(context, &alloc_desc, 4 * kGiB, 0, cards[0], &on_card),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(free_of(1), kTileBytes - 10 * kGiB);
  EXPECT_EQ(free_of(0), kTileBytes - 2 * kGiB);
  ASSERT_EQ(zeMemFree(context, on_tile_1), ZE_RESULT_SUCCESS);
  EXPECT_EQ(free_of(1), kTileBytes - 2 * kGiB);
  ASSERT_EQ(zeMemFree(context, on_card), ZE_RESULT_SUCCESS);
  EXPECT_EQ(free_of(0), kTileBytes);
  EXPECT_EQ(free_of(1), kTileBytes);
  EXPECT_EQ(zeContextDestroy(context), ZE_RESULT_SUCCESS);
}

// The zesInit route through the stand-in.
class ZeSysmanInit : public ze_test::ZeTest {
 protected:
  void SetUp() override {
    ze_test::ZeTest::SetUp();
    shim_ = dlopen(ZE_TEST_SHIM, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(shim_, nullptr) << dlerror();
    init_ = reinterpret_cast<abi::PFN_zesInit>(dlsym(shim_, "zesInit"));
    driver_get_ = reinterpret_cast<abi::PFN_zesDriverGet>(dlsym(shim_, "zesDriverGet"));
    device_get_ = reinterpret_cast<abi::PFN_zesDeviceGet>(dlsym(shim_, "zesDeviceGet"));
    properties_ = reinterpret_cast<decltype(properties_)>(dlsym(shim_, "zesDeviceGetProperties"));
    ASSERT_TRUE(init_ && driver_get_ && device_get_ && properties_);
    // The stand-in links the real loader: the core entry points come from it.
    EXPECT_EQ(dlsym(shim_, "zeInit"), reinterpret_cast<void*>(&zeInit));
  }
  std::vector<zes_device_handle_t> cards() {
    std::uint32_t count = 0;
    zes_driver_handle_t driver = nullptr;
    EXPECT_EQ(driver_get_(&count, nullptr), ZE_RESULT_SUCCESS);
    EXPECT_EQ(count, 1u);
    EXPECT_EQ(driver_get_(&count, &driver), ZE_RESULT_SUCCESS);
    count = 0;
    EXPECT_EQ(device_get_(driver, &count, nullptr), ZE_RESULT_SUCCESS);
    std::vector<zes_device_handle_t> out(count);
    EXPECT_EQ(device_get_(driver, &count, out.data()), ZE_RESULT_SUCCESS);
    return out;
  }
  void* shim_ = nullptr;
  abi::PFN_zesInit init_ = nullptr;
  abi::PFN_zesDriverGet driver_get_ = nullptr;
  abi::PFN_zesDeviceGet device_get_ = nullptr;
  ze_result_t (*properties_)(zes_device_handle_t, zes_device_properties_t*) = nullptr;
};

// Cards whatever the mask and hierarchy, without initialising the core.
TEST_F(ZeSysmanInit, CountsCardsWithoutCoreInit) {
  setenv("ZE_AFFINITY_MASK", "1", 1);
  setenv("ZE_FLAT_DEVICE_HIERARCHY", "FLAT", 1);
  ASSERT_EQ(init_(0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(init_(0), ZE_RESULT_SUCCESS);  // once per process, cached
  auto list = cards();
  ASSERT_EQ(list.size(), 2u);
  abi::zes_device_ext_properties_t ext{};
  ext.stype = abi::kZesStructureTypeDeviceExtProperties;
  zes_device_properties_t p{};
  p.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  p.pNext = &ext;
  ASSERT_EQ(properties_(list[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.numSubdevices, 2u);
  EXPECT_EQ(p.core.deviceId, 0x0bd6u);
  EXPECT_EQ(ext.flags, 0u);
  EXPECT_EQ(mockdev::control::call_count("zeInit"), 0u);
  EXPECT_EQ(mockdev::control::level_zero::status().sysman_route, "zesInit");
}

TEST_F(ZeSysmanInit, FlagsOtherThanGpuOnlyFail) {
  EXPECT_EQ(init_(0x2), ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(init_(ZE_INIT_FLAG_GPU_ONLY), ZE_RESULT_SUCCESS);
}

TEST_F(ZeSysmanInit, NoIntelDeviceFails) {
  use_machine(ze_test::nvidia_only());
  EXPECT_EQ(init_(0), ZE_RESULT_ERROR_UNINITIALIZED);
  std::uint32_t count = 0;
  EXPECT_EQ(driver_get_(&count, nullptr), ZE_RESULT_ERROR_UNINITIALIZED);
}

// The routes exclude each other.
TEST_F(ZeSysmanInit, LegacyRouteFirstMakesZesInitFail) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  init_driver();
  EXPECT_EQ(init_(0), ZE_RESULT_ERROR_UNINITIALIZED);
}

TEST_F(ZeSysmanInit, CoreHandlesAreNotSysmanHandlesOnTheZesInitRoute) {
  ASSERT_EQ(init_(0), ZE_RESULT_SUCCESS);
  setenv("ZES_ENABLE_SYSMAN", "1", 1);  // too late: zesInit chose the route
  auto core_devices = devices_of(init_driver());
  zes_device_properties_t p{};
  p.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  EXPECT_EQ(properties_(core_devices[0], &p), ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(properties_(cards()[0], &p), ZE_RESULT_SUCCESS);
}

TEST_F(ZeSysmanInit, MemoryStateOfAnUntiledCard) {
  use_machine(ze_test::laptop());
  ASSERT_EQ(init_(0), ZE_RESULT_SUCCESS);
  auto enumerate = reinterpret_cast<ze_result_t (*)(zes_device_handle_t, std::uint32_t*, zes_mem_handle_t*)>(
      dlsym(shim_, "zesDeviceEnumMemoryModules"));
  auto state_of = reinterpret_cast<ze_result_t (*)(zes_mem_handle_t, zes_mem_state_t*)>(
      dlsym(shim_, "zesMemoryGetState"));
  ASSERT_TRUE(enumerate && state_of);
  auto list = cards();
  std::uint32_t count = 0;
  ASSERT_EQ(enumerate(list[0], &count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 1u);
  zes_mem_handle_t module = nullptr;
  ASSERT_EQ(enumerate(list[0], &count, &module), ZE_RESULT_SUCCESS);
  zes_mem_state_t state{};
  state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
  ASSERT_EQ(state_of(module, &state), ZE_RESULT_SUCCESS);
  EXPECT_EQ(state.size, std::uint64_t{8} << 30);
  EXPECT_EQ(state.free, std::uint64_t{8} << 30);
}

}  // namespace
