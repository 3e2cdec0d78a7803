// The driver file's getters, opened directly with dlopen as a loader does
// (oneapi-src/level-zero's loader and Intel's driver conventions): argument checks, any 1.x
// accepted, and entries written only for versions that have them. No loader involved.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "accel_abi/level_zero_core_newer.h"
#include "accel_abi/level_zero_sysman_1_5.h"
#include "mockdev/control.h"
#include "ze_test_machines.h"

namespace {

namespace abi = accel::abi::level_zero;

constexpr auto kV10 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 0));
constexpr auto kV14 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 4));
constexpr auto kV15 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 5));
constexpr auto kV16 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 6));
constexpr auto kV17 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 7));
constexpr auto kV19 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 9));
constexpr auto kV110 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 10));
constexpr auto kV117 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 17));
constexpr auto kV20 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(2, 0));

// A byte pattern no function pointer has: what "untouched" looks like.
constexpr unsigned char kPoison = 0xab;
template <typename T>
void poison(T& t) {
  std::memset(&t, kPoison, sizeof t);
}
bool untouched(const void* p) {
  unsigned char expected[sizeof(void*)];
  std::memset(expected, kPoison, sizeof expected);
  return std::memcmp(p, expected, sizeof expected) == 0;
}

class ZeGetters : public ::testing::Test {
 protected:
  void SetUp() override {
    mockdev::control::reset(ze_test::two_cards_two_tiles());
    driver_ = dlopen(ZE_TEST_DRIVER, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(driver_, nullptr) << dlerror();
  }
  template <typename Table>
  ze_result_t (*getter(const char* name))(ze_api_version_t, Table*) {
    return reinterpret_cast<ze_result_t (*)(ze_api_version_t, Table*)>(dlsym(driver_, name));
  }

  // A member newer than the 1.4 headers, as a newer loader asks for it: `Layout` is the longer
  // table the loader passes. Asked for at `below`, the member stays the caller's (poisoned);
  // at `at` it is written; nothing past the longer layout is ever touched.
  template <typename Table, typename Layout, typename Member>
  void expect_written_from(const char* name, Member Layout::*member, ze_api_version_t below,
                           ze_api_version_t at) {
    struct {
      Layout table;
      void* after;
    } t;
    poison(t);
    auto get = getter<Table>(name);
    auto* table = reinterpret_cast<Table*>(&t.table);
    ASSERT_EQ(get(below, table), ZE_RESULT_SUCCESS) << name;
    EXPECT_TRUE(untouched(&(t.table.*member))) << name;
    ASSERT_EQ(get(at, table), ZE_RESULT_SUCCESS) << name;
    EXPECT_FALSE(untouched(&(t.table.*member))) << name;
    EXPECT_TRUE(untouched(&t.after)) << name;
  }

  // The driver's 1.4 tables a test calls without a loader, after zeInit: the driver, its
  // first device and a context made for the test (destroyed with the fixture's test).
  struct Session {
    ze_driver_dditable_t driver_table{};
    ze_device_dditable_t device_table{};
    ze_context_dditable_t context_table{};
    ze_driver_handle_t driver = nullptr;
    ze_device_handle_t device = nullptr;
    ze_context_handle_t context = nullptr;
  };
  void open_session(Session& s) {
    ze_global_dditable_t g{};
    ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV14, &g),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(kV14, &s.driver_table),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(getter<ze_device_dditable_t>("zeGetDeviceProcAddrTable")(kV14, &s.device_table),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(getter<ze_context_dditable_t>("zeGetContextProcAddrTable")(kV14, &s.context_table),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(g.pfnInit(0), ZE_RESULT_SUCCESS);
    std::uint32_t count = 1;
    ASSERT_EQ(s.driver_table.pfnGet(&count, &s.driver), ZE_RESULT_SUCCESS);
    ASSERT_EQ(s.device_table.pfnGet(s.driver, &count, &s.device), ZE_RESULT_SUCCESS);
    ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ASSERT_EQ(s.context_table.pfnCreate(s.driver, &desc, &s.context), ZE_RESULT_SUCCESS);
  }

  void* driver_ = nullptr;
};

TEST_F(ZeGetters, NullTableAndForeignMajorVersion) {
  auto get = getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable");
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(get(kV14, nullptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_global_dditable_t t;
  poison(t);
  EXPECT_EQ(get(kV20, &t), ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
  EXPECT_TRUE(untouched(&t.pfnInit));
  auto empty = getter<ze_image_dditable_t>("zeGetImageProcAddrTable");
  ASSERT_NE(empty, nullptr);
  EXPECT_EQ(empty(kV14, nullptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(empty(kV20, reinterpret_cast<ze_image_dditable_t*>(&t)),
            ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
}

// A newer loader asks for its own version; the mock accepts and writes what
// it has.
TEST_F(ZeGetters, AnyMinorVersionIsAccepted) {
  auto get = getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable");
  // A loader asking at 1.17 passes the table as 1.17 lays it out: at least the 1.10 members
  // (the mock writes pfnInitDrivers there; a 1.4-sized table would be overrun).
  abi::ze_global_dditable_1_10_t t;
  poison(t);
  EXPECT_EQ(get(kV117, reinterpret_cast<ze_global_dditable_t*>(&t)), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&t.v1_4.pfnInit));
}

// Driver pfnGetExtensionFunctionAddress from 1.1; Device pfnGetGlobalTimestamps 1.1.
TEST_F(ZeGetters, CoreEntriesAreVersionGated) {
  auto get_driver = getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable");
  ze_driver_dditable_t d;
  poison(d);
  ASSERT_EQ(get_driver(kV10, &d), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&d.pfnGet));
  EXPECT_TRUE(untouched(&d.pfnGetExtensionFunctionAddress));
  poison(d);
  ASSERT_EQ(get_driver(kV14, &d), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&d.pfnGetExtensionFunctionAddress));
  auto get_device = getter<ze_device_dditable_t>("zeGetDeviceProcAddrTable");
  ze_device_dditable_t v;
  poison(v);
  ASSERT_EQ(get_device(kV10, &v), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&v.pfnGetProperties));
  EXPECT_TRUE(untouched(&v.pfnGetGlobalTimestamps));
  EXPECT_TRUE(untouched(&v.pfnReserveCacheExt));  // not implemented: never written
}

// zesInit and the two pfnGet entries only for requests >= 1.5, and nothing past
// pfnGet (the overclock entries stay the caller's).
TEST_F(ZeGetters, SysmanEntriesOfSpec15AreWrittenOnlyFor15) {
  auto get_global = getter<abi::zes_global_dditable_1_5_t>("zesGetGlobalProcAddrTable");
  ASSERT_NE(get_global, nullptr);
  abi::zes_global_dditable_1_5_t g;
  poison(g);
  ASSERT_EQ(get_global(kV14, &g), ZE_RESULT_SUCCESS);
  EXPECT_TRUE(untouched(&g.pfnInit));
  ASSERT_EQ(get_global(kV15, &g), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&g.pfnInit));

  auto get_driver = getter<zes_driver_dditable_t>("zesGetDriverProcAddrTable");
  abi::zes_driver_dditable_1_5_t d;
  poison(d);
  ASSERT_EQ(get_driver(kV14, reinterpret_cast<zes_driver_dditable_t*>(&d)), ZE_RESULT_SUCCESS);
  EXPECT_TRUE(untouched(&d.pfnGet));
  ASSERT_EQ(get_driver(kV15, reinterpret_cast<zes_driver_dditable_t*>(&d)), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&d.pfnGet));

  auto get_device = getter<zes_device_dditable_t>("zesGetDeviceProcAddrTable");
  abi::zes_device_dditable_1_5_t v;
  poison(v);
  ASSERT_EQ(get_device(kV14, reinterpret_cast<zes_device_dditable_t*>(&v)), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&v.v1_4.pfnGetProperties));
  EXPECT_TRUE(untouched(&v.pfnGet));
  ASSERT_EQ(get_device(kV15, reinterpret_cast<zes_device_dditable_t*>(&v)), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&v.pfnGet));
  EXPECT_TRUE(untouched(&v.pfnSetOverclockWaiver));
  EXPECT_TRUE(untouched(&v.pfnEnumOverclockDomains));
}

// Note [Level Zero call order]: calls before zeInit are UNINITIALIZED; after it, they work.
TEST_F(ZeGetters, DirectCallsBeforeAndAfterInit) {
  ze_global_dditable_t g{};
  ze_driver_dditable_t d{};
  ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV14, &g), ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(kV14, &d), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  EXPECT_EQ(d.pfnGet(&count, nullptr), ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(g.pfnInit(0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(d.pfnGet(&count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(d.pfnGet(nullptr, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  // An unknown handle is rejected through the registry, never dereferenced.
  ze_api_version_t version{};
  int not_a_driver = 0;
  EXPECT_EQ(d.pfnGetApiVersion(reinterpret_cast<ze_driver_handle_t>(&not_a_driver), &version),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(mockdev::control::call_count("zeDriverGet"), 3u);
}

// The machine's call fault fires with its ze code.
TEST_F(ZeGetters, ScheduledCallFaultReturnsItsCode) {
  mockdev::MachineSpec m = ze_test::two_cards_two_tiles();
  m.faults.calls.push_back(
      mockdev::CallFault{"zeDriverGet", 2, ZE_RESULT_ERROR_DEVICE_LOST, mockdev::Api::kLevelZero});
  mockdev::control::reset(m);
  ze_global_dditable_t g{};
  ze_driver_dditable_t d{};
  ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV14, &g), ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(kV14, &d), ZE_RESULT_SUCCESS);
  ASSERT_EQ(g.pfnInit(0), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  EXPECT_EQ(d.pfnGet(&count, nullptr), ZE_RESULT_SUCCESS);
  count = 0;
  EXPECT_EQ(d.pfnGet(&count, nullptr), ZE_RESULT_ERROR_DEVICE_LOST);
  count = 0;
  EXPECT_EQ(d.pfnGet(&count, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
}

// What a newer loader asks for (decision 208): Global pfnInitDrivers only at >= 1.10, Driver
// pfnGetLastErrorDescription at >= 1.6, Device pfnGetRootDevice at >= 1.7, each written through
// the longer layout and never for an older request (Debian's loader asks for 1.4); the member
// after each stays the caller's.
TEST_F(ZeGetters, NewerCoreEntriesAreWrittenOnlyAtTheirVersion) {
  expect_written_from<ze_global_dditable_t>(
      "zeGetGlobalProcAddrTable", &abi::ze_global_dditable_1_10_t::pfnInitDrivers, kV19, kV110);
  expect_written_from<ze_driver_dditable_t>(
      "zeGetDriverProcAddrTable", &abi::ze_driver_dditable_1_6_t::pfnGetLastErrorDescription, kV15,
      kV16);
  expect_written_from<ze_device_dditable_t>(
      "zeGetDeviceProcAddrTable", &abi::ze_device_dditable_1_7_t::pfnGetRootDevice, kV16, kV17);
  // The 1.4 members are written at any version (pfnInit asked for at 1.9).
  ze_global_dditable_t g;
  poison(g);
  ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV19, &g), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&g.pfnInit));
}

// zeInitDrivers as a loader >= 1.18 calls it: descriptor checks, the GPU bit, initialisation
// (the driver's later calls work without zeInit), zeDriverGet's count protocol, and the same
// handle every time.
TEST_F(ZeGetters, InitDriversInitialisesAndReturnsTheDriver) {
  abi::ze_global_dditable_1_10_t g{};
  abi::ze_driver_dditable_1_6_t d{};
  ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(
                kV110, reinterpret_cast<ze_global_dditable_t*>(&g)),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(
                kV16, reinterpret_cast<ze_driver_dditable_t*>(&d)),
            ZE_RESULT_SUCCESS);
  abi::ze_init_driver_type_desc_t desc{abi::kStructureTypeInitDriverTypeDesc, nullptr,
                                       abi::kInitDriverTypeFlagGpu};
  std::uint32_t count = 0;
  EXPECT_EQ(g.pfnInitDrivers(nullptr, nullptr, &desc), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(g.pfnInitDrivers(&count, nullptr, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  desc.flags = 0;
  EXPECT_EQ(g.pfnInitDrivers(&count, nullptr, &desc), ZE_RESULT_ERROR_INVALID_ENUMERATION);
  desc.flags = abi::kInitDriverTypeFlagNpu;
  EXPECT_EQ(g.pfnInitDrivers(&count, nullptr, &desc), ZE_RESULT_ERROR_UNINITIALIZED);
  EXPECT_EQ(d.v1_4.pfnGet(&count, nullptr), ZE_RESULT_ERROR_UNINITIALIZED);  // not initialised

  desc.flags = UINT32_MAX;  // every type: the GPU bit is set
  EXPECT_EQ(g.pfnInitDrivers(&count, nullptr, &desc), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  ze_driver_handle_t first = nullptr;
  EXPECT_EQ(g.pfnInitDrivers(&count, &first, &desc), ZE_RESULT_SUCCESS);
  ASSERT_NE(first, nullptr);
  count = 4;
  ze_driver_handle_t again[4] = {};
  desc.flags = abi::kInitDriverTypeFlagGpu;
  EXPECT_EQ(g.pfnInitDrivers(&count, again, &desc), ZE_RESULT_SUCCESS);
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(again[0], first);
  count = 1;
  EXPECT_EQ(g.pfnInitDrivers(&count, nullptr, &desc), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ze_driver_handle_t listed = nullptr;
  count = 1;
  EXPECT_EQ(d.v1_4.pfnGet(&count, &listed), ZE_RESULT_SUCCESS);  // initialised
  EXPECT_EQ(listed, first);
  EXPECT_EQ(mockdev::control::call_count("zeInitDrivers"), 8u);
}

// zeDriverGetLastErrorDescription: "" before any error, then the calling thread's last failing
// call by name, code name and hex; a success leaves it (Note [Last error description]).
TEST_F(ZeGetters, LastErrorDescriptionNamesTheLastFailingCall) {
  ze_global_dditable_t g{};
  abi::ze_driver_dditable_1_6_t d{};
  ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV14, &g), ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(
                kV16, reinterpret_cast<ze_driver_dditable_t*>(&d)),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(g.pfnInit(0), ZE_RESULT_SUCCESS);
  std::uint32_t count = 1;
  ze_driver_handle_t driver = nullptr;
  ASSERT_EQ(d.v1_4.pfnGet(&count, &driver), ZE_RESULT_SUCCESS);
  const char* text = nullptr;
  EXPECT_EQ(d.pfnGetLastErrorDescription(driver, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ASSERT_EQ(d.pfnGetLastErrorDescription(driver, &text), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(text,
               "zeDriverGetLastErrorDescription returned "
               "ZE_RESULT_ERROR_INVALID_NULL_POINTER (0x78000007)");
  ze_api_version_t version{};
  EXPECT_EQ(d.v1_4.pfnGetApiVersion(driver, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(d.v1_4.pfnGetApiVersion(driver, &version), ZE_RESULT_SUCCESS);
  ASSERT_EQ(d.pfnGetLastErrorDescription(driver, &text), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(text,
               "zeDriverGetApiVersion returned ZE_RESULT_ERROR_INVALID_NULL_POINTER (0x78000007)");
  // Every code of the shared table has its name (accel_abi/level_zero_results.h), a module
  // code (here from a scheduled fault) too.
  mockdev::control::fail_call("zeDriverGetApiVersion", 1, ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  EXPECT_EQ(d.v1_4.pfnGetApiVersion(driver, &version), ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
  ASSERT_EQ(d.pfnGetLastErrorDescription(driver, &text), ZE_RESULT_SUCCESS);
  EXPECT_STREQ(text,
               "zeDriverGetApiVersion returned ZE_RESULT_ERROR_MODULE_BUILD_FAILURE (0x70000004)");
  int not_a_driver = 0;
  EXPECT_EQ(
      d.pfnGetLastErrorDescription(reinterpret_cast<ze_driver_handle_t>(&not_a_driver), &text),
      ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// zeDeviceGetRootDevice (D-3's table) under COMBINED: a tile's root is its card, the card has
// none; under FLAT nothing has a root.
TEST_F(ZeGetters, RootDeviceFollowsTheHierarchy) {
  for (const char* hierarchy : {"COMBINED", "FLAT", "COMPOSITE"}) {
    SCOPED_TRACE(hierarchy);
    setenv("ZE_FLAT_DEVICE_HIERARCHY", hierarchy, 1);
    mockdev::control::reset(ze_test::two_cards_two_tiles());
    ze_global_dditable_t g{};
    ze_driver_dditable_t d{};
    abi::ze_device_dditable_1_7_t v{};
    ASSERT_EQ(getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable")(kV14, &g),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(getter<ze_driver_dditable_t>("zeGetDriverProcAddrTable")(kV14, &d),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(getter<ze_device_dditable_t>("zeGetDeviceProcAddrTable")(
                  kV17, reinterpret_cast<ze_device_dditable_t*>(&v)),
              ZE_RESULT_SUCCESS);
    ASSERT_EQ(g.pfnInit(0), ZE_RESULT_SUCCESS);
    std::uint32_t count = 1;
    ze_driver_handle_t driver = nullptr;
    ASSERT_EQ(d.pfnGet(&count, &driver), ZE_RESULT_SUCCESS);
    count = 8;
    ze_device_handle_t devices[8] = {};
    ASSERT_EQ(v.v1_4.pfnGet(driver, &count, devices), ZE_RESULT_SUCCESS);
    ze_device_handle_t root = devices[0];
    EXPECT_EQ(v.pfnGetRootDevice(devices[0], nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
    ASSERT_EQ(v.pfnGetRootDevice(devices[0], &root), ZE_RESULT_SUCCESS);
    const std::string mode = hierarchy;
    if (mode == "COMPOSITE") {
      EXPECT_EQ(count, 2u);
      EXPECT_EQ(root, nullptr);  // a card
      std::uint32_t subs = 2;
      ze_device_handle_t tiles[2] = {};
      ASSERT_EQ(v.v1_4.pfnGetSubDevices(devices[1], &subs, tiles), ZE_RESULT_SUCCESS);
      ASSERT_EQ(v.pfnGetRootDevice(tiles[1], &root), ZE_RESULT_SUCCESS);
      EXPECT_EQ(root, devices[1]);
    } else {
      EXPECT_EQ(count, 4u);
      if (mode == "FLAT") {
        EXPECT_EQ(root, nullptr);
      } else {
        ASSERT_NE(root, nullptr);  // the first card
        ze_device_handle_t card_root = devices[0];
        ASSERT_EQ(v.pfnGetRootDevice(root, &card_root), ZE_RESULT_SUCCESS);
        EXPECT_EQ(card_root, nullptr);
        ze_device_handle_t third = nullptr;
        ASSERT_EQ(v.pfnGetRootDevice(devices[2], &third), ZE_RESULT_SUCCESS);
        EXPECT_NE(third, root);  // the second card
        EXPECT_NE(third, nullptr);
      }
    }
    unsetenv("ZE_FLAT_DEVICE_HIERARCHY");
  }
}

// zeMemPutIpcHandle and zeEventPoolPutIpcHandle (1.6), written only at >= 1.6 through the longer
// layouts (Note [Level Zero IPC handles]): a valid context is required; any handle goes back,
// one this driver made or not (Intel's driver ignores a handle it does not track); and giving a
// handle back frees nothing: the allocation and the pool stay usable.
TEST_F(ZeGetters, PutIpcHandleGivesBackWithoutFreeing) {
  expect_written_from<ze_mem_dditable_t>("zeGetMemProcAddrTable",
                                         &abi::ze_mem_dditable_1_6_t::pfnPutIpcHandle, kV15, kV16);
  expect_written_from<ze_event_pool_dditable_t>("zeGetEventPoolProcAddrTable",
                                                &abi::ze_event_pool_dditable_1_6_t::pfnPutIpcHandle,
                                                kV15, kV16);
  Session s;
  ASSERT_NO_FATAL_FAILURE(open_session(s));
  abi::ze_mem_dditable_1_6_t m{};
  abi::ze_event_pool_dditable_1_6_t p{};
  ASSERT_EQ(getter<ze_mem_dditable_t>("zeGetMemProcAddrTable")(
                kV16, reinterpret_cast<ze_mem_dditable_t*>(&m)),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_event_pool_dditable_t>("zeGetEventPoolProcAddrTable")(
                kV16, reinterpret_cast<ze_event_pool_dditable_t*>(&p)),
            ZE_RESULT_SUCCESS);

  ze_device_mem_alloc_desc_t alloc_desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* buffer = nullptr;
  ASSERT_EQ(m.v1_4.pfnAllocDevice(s.context, &alloc_desc, 4096, 0, s.device, &buffer),
            ZE_RESULT_SUCCESS);
  ze_ipc_mem_handle_t handle{};
  ASSERT_EQ(m.v1_4.pfnGetIpcHandle(s.context, buffer, &handle), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.pfnPutIpcHandle(nullptr, handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(m.pfnPutIpcHandle(s.context, handle), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.pfnPutIpcHandle(s.context, ze_ipc_mem_handle_t{}), ZE_RESULT_SUCCESS);
  ze_memory_allocation_properties_t properties{};
  properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ASSERT_EQ(m.v1_4.pfnGetAllocProperties(s.context, buffer, &properties, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(properties.type, ZE_MEMORY_TYPE_DEVICE);  // still allocated
  EXPECT_EQ(m.v1_4.pfnGetIpcHandle(s.context, buffer, &handle), ZE_RESULT_SUCCESS);
  EXPECT_EQ(m.v1_4.pfnFree(s.context, buffer), ZE_RESULT_SUCCESS);

  ze_event_pool_desc_t pool_desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, ZE_EVENT_POOL_FLAG_IPC,
                                 2};
  ze_event_pool_handle_t pool = nullptr;
  ASSERT_EQ(p.v1_4.pfnCreate(s.context, &pool_desc, 1, &s.device, &pool), ZE_RESULT_SUCCESS);
  ze_ipc_event_pool_handle_t pool_handle{};
  ASSERT_EQ(p.v1_4.pfnGetIpcHandle(pool, &pool_handle), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.pfnPutIpcHandle(nullptr, pool_handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(p.pfnPutIpcHandle(s.context, pool_handle), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.pfnPutIpcHandle(s.context, ze_ipc_event_pool_handle_t{}), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.v1_4.pfnGetIpcHandle(pool, &pool_handle), ZE_RESULT_SUCCESS);  // still a pool
  EXPECT_EQ(p.v1_4.pfnDestroy(pool), ZE_RESULT_SUCCESS);

  // Counted under their own names, so a machine file or a scenario can fault them.
  EXPECT_EQ(mockdev::control::call_count("zeMemPutIpcHandle"), 3u);
  EXPECT_EQ(mockdev::control::call_count("zeEventPoolPutIpcHandle"), 3u);
  EXPECT_EQ(s.context_table.pfnDestroy(s.context), ZE_RESULT_SUCCESS);
}

// zeCommandListHostSynchronize (1.6), written only at >= 1.6 through the longer layout: an
// immediate list is waited for under zeCommandQueueSynchronize's timeout rules (work held by an
// unsignalled event is NOT_READY at once or after a finite timeout, SUCCESS once released); a
// regular list is INVALID_ARGUMENT.
TEST_F(ZeGetters, CommandListHostSynchronizeWaitsForTheList) {
  expect_written_from<ze_command_list_dditable_t>(
      "zeGetCommandListProcAddrTable", &abi::ze_command_list_dditable_1_6_t::pfnHostSynchronize,
      kV15, kV16);
  Session s;
  ASSERT_NO_FATAL_FAILURE(open_session(s));
  abi::ze_command_list_dditable_1_6_t l{};
  ze_event_pool_dditable_t p{};
  ze_event_dditable_t e{};
  ASSERT_EQ(getter<ze_command_list_dditable_t>("zeGetCommandListProcAddrTable")(
                kV16, reinterpret_cast<ze_command_list_dditable_t*>(&l)),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_event_pool_dditable_t>("zeGetEventPoolProcAddrTable")(kV14, &p),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(getter<ze_event_dditable_t>("zeGetEventProcAddrTable")(kV14, &e), ZE_RESULT_SUCCESS);

  ze_command_queue_desc_t queue_desc{};
  queue_desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  ze_command_list_handle_t immediate = nullptr;
  ASSERT_EQ(l.v1_4.pfnCreateImmediate(s.context, s.device, &queue_desc, &immediate),
            ZE_RESULT_SUCCESS);
  ze_command_list_desc_t list_desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t regular = nullptr;
  ASSERT_EQ(l.v1_4.pfnCreate(s.context, s.device, &list_desc, &regular), ZE_RESULT_SUCCESS);
  ze_event_pool_desc_t pool_desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                 ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
  ze_event_pool_handle_t pool = nullptr;
  ASSERT_EQ(p.pfnCreate(s.context, &pool_desc, 1, &s.device, &pool), ZE_RESULT_SUCCESS);
  ze_event_desc_t event_desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                             ZE_EVENT_SCOPE_FLAG_HOST};
  ze_event_handle_t gate = nullptr;
  ASSERT_EQ(e.pfnCreate(pool, &event_desc, &gate), ZE_RESULT_SUCCESS);

  EXPECT_EQ(l.pfnHostSynchronize(nullptr, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(l.pfnHostSynchronize(regular, 0), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(l.pfnHostSynchronize(immediate, 0), ZE_RESULT_SUCCESS);  // nothing appended
  // Work held back by an event nothing has signalled yet.
  ASSERT_EQ(l.v1_4.pfnAppendWaitOnEvents(immediate, 1, &gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(l.v1_4.pfnAppendBarrier(immediate, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(l.pfnHostSynchronize(immediate, 0), ZE_RESULT_NOT_READY);
  EXPECT_EQ(l.pfnHostSynchronize(immediate, 1000000), ZE_RESULT_NOT_READY);
  ASSERT_EQ(e.pfnHostSignal(gate), ZE_RESULT_SUCCESS);
  EXPECT_EQ(l.pfnHostSynchronize(immediate, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(l.pfnHostSynchronize(immediate, 0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::call_count("zeCommandListHostSynchronize"), 7u);

  EXPECT_EQ(e.pfnDestroy(gate), ZE_RESULT_SUCCESS);
  EXPECT_EQ(p.pfnDestroy(pool), ZE_RESULT_SUCCESS);
  EXPECT_EQ(l.v1_4.pfnDestroy(regular), ZE_RESULT_SUCCESS);
  EXPECT_EQ(l.v1_4.pfnDestroy(immediate), ZE_RESULT_SUCCESS);
  EXPECT_EQ(s.context_table.pfnDestroy(s.context), ZE_RESULT_SUCCESS);
}

}  // namespace
