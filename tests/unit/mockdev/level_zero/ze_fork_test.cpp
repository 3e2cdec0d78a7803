// Fork: the pid gate refuses core calls in a child of a
// process that initialised, zeInit included (Debian's loader forwards the child's zeInit to
// the driver); the reinit policy builds fresh devices instead; Sysman stays usable.

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include "child_process.h"
#include "ze_fixture.h"

namespace {

using accel::test::run_in_child;
using ze_test::devices_of;
using ze_test::init_driver;

class ZeFork : public ze_test::ZeTest {};

TEST_F(ZeFork, ChildOfAnInitialisedParentIsRefused) {
  setenv("ZES_ENABLE_SYSMAN", "1", 1);
  ze_driver_handle_t driver = init_driver();
  auto cards = devices_of(driver);
  ASSERT_EQ(cards.size(), 2u);
  auto child = run_in_child([&] {
    EXPECT_TRUE(mockdev::control::level_zero::status().forked_after_init);
    std::uint32_t count = 0;
    EXPECT_EQ(zeDeviceGet(driver, &count, nullptr), ZE_RESULT_ERROR_UNINITIALIZED);
    EXPECT_EQ(zeInit(0), ZE_RESULT_ERROR_UNINITIALIZED);
    ze_device_properties_t p{};
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    EXPECT_EQ(zeDeviceGetProperties(cards[0], &p), ZE_RESULT_ERROR_UNINITIALIZED);
    // Sysman stays allowed in the child (a modelling choice: Intel's Sysman has no pid check).
    zes_device_properties_t s{};
    s.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    EXPECT_EQ(zesDeviceGetProperties(cards[1], &s), ZE_RESULT_SUCCESS);
    EXPECT_EQ(s.numSubdevices, 2u);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
  // The parent is unaffected.
  EXPECT_FALSE(mockdev::control::level_zero::status().forked_after_init);
  EXPECT_EQ(devices_of(driver).size(), 2u);
}

TEST_F(ZeFork, ReinitPolicyGivesTheChildFreshDevices) {
  mockdev::control::level_zero::set_child_policy(mockdev::LevelZeroDriverSpec::ChildPolicy::kReinit);
  ze_driver_handle_t driver = init_driver();
  auto cards = devices_of(driver);
  auto child = run_in_child([&] {
    std::uint32_t count = 0;
    EXPECT_EQ(zeDeviceGet(driver, &count, nullptr), ZE_RESULT_ERROR_UNINITIALIZED);  // before
                                                                                     // zeInit
    ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
    ze_driver_handle_t fresh = nullptr;
    count = 1;
    ASSERT_EQ(zeDriverGet(&count, &fresh), ZE_RESULT_SUCCESS);
    auto mine = devices_of(fresh);
    EXPECT_EQ(ze_test::labels(mine), (std::vector<std::string>{"c0", "c1"}));
    // The parent's handles mean nothing here.
    ze_device_properties_t p{};
    p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    // (the parent's objects stay allocated, Note [Leaky state], so new ones never reuse
    // their addresses)
    EXPECT_NE(fresh, driver);
    count = 0;
    EXPECT_EQ(zeDeviceGet(driver, &count, nullptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    EXPECT_EQ(zeDeviceGetProperties(cards[0], &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    EXPECT_TRUE(mockdev::control::level_zero::status().initialized);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_EQ(devices_of(driver), cards);
}

// A child forked before any zeInit initialises normally (the probe-child pattern).
TEST_F(ZeFork, ChildForkedBeforeInitInitialises) {
  auto child = run_in_child([&] {
    ze_driver_handle_t driver = init_driver();
    EXPECT_EQ(devices_of(driver).size(), 2u);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_FALSE(mockdev::control::level_zero::status().init_attempted);
  EXPECT_EQ(devices_of(init_driver()).size(), 2u);
}

}  // namespace
