// The driver file's getters, opened directly with dlopen as a loader does
// (oneapi-src/level-zero's loader and Intel's driver conventions): argument checks, any 1.x
// accepted, and entries written only for versions that have them. No loader involved.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>

#include "accel_abi/level_zero_sysman_1_5.h"
#include "mockdev/control.h"
#include "ze_test_machines.h"

namespace {

namespace abi = accel::abi::level_zero;

constexpr auto kV10 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 0));
constexpr auto kV14 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 4));
constexpr auto kV15 = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 5));
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
  EXPECT_EQ(empty(kV20, reinterpret_cast<ze_image_dditable_t*>(&t)), ZE_RESULT_ERROR_UNSUPPORTED_VERSION);
}

// A newer loader asks for its own version; the mock accepts and writes what
// it has.
TEST_F(ZeGetters, AnyMinorVersionIsAccepted) {
  auto get = getter<ze_global_dditable_t>("zeGetGlobalProcAddrTable");
  ze_global_dditable_t t;
  poison(t);
  EXPECT_EQ(get(kV117, &t), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(untouched(&t.pfnInit));
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
  m.faults.calls.push_back(mockdev::CallFault{"zeDriverGet", 2, ZE_RESULT_ERROR_DEVICE_LOST,
                                              mockdev::Api::kLevelZero});
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

}  // namespace
