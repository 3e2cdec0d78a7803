// Item: the entry points a newer loader routes (zeInitDrivers 1.10, zeDriverGetLastErrorDescription
// 1.6, zeDeviceGetRootDevice 1.7), reached through the loader's exports; their types come from
// accel_abi/level_zero_core_newer.h, as the headers this builds with may predate them. A loader
// that does not export one says so in the skip (Debian's 1.8.12 exports none of the three); the
// simulated driver's answers are also checked without a loader, at each version, by
// ZeGetters.InitDriversInitialisesAndReturnsTheDriver, LastErrorDescriptionNamesTheLastFailingCall
// and RootDeviceFollowsTheHierarchy.

#include <string>
#include <vector>

#include "accel_abi/level_zero_core_newer.h"
#include "ze_driver_test.h"

namespace accel::ze_driver_test {
namespace {

namespace newer = accel::abi::level_zero;

class ZeNewerEntryPoints : public ZeDriverTest {
 protected:
  template <typename Fn>
  static Fn entry(const char* symbol) {
    return reinterpret_cast<Fn>(loader_symbol(symbol));
  }
};

#define ACCEL_LOADER_ENTRY(var, type, symbol)                                             \
  const auto var = entry<type>(symbol);                                                   \
  if (var == nullptr) {                                                                   \
    GTEST_SKIP() << "this Level Zero loader does not export " symbol                      \
                    ": a newer loader routes it (docs/HARDWARE.md, \"Interprocess handles " \
                    "and the entry points of newer loaders\")";                           \
  }

// zeInitDrivers for GPU drivers lists at least one driver, each with devices; flags 0 is
// INVALID_ENUMERATION (the specification).
TEST_F(ZeNewerEntryPoints, InitDriversListsTheGpuDrivers) {
  ACCEL_LOADER_ENTRY(init_drivers, newer::PFN_zeInitDrivers, "zeInitDrivers");
  newer::ze_init_driver_type_desc_t desc{newer::kStructureTypeInitDriverTypeDesc, nullptr,
                                         newer::kInitDriverTypeFlagGpu};
  std::uint32_t count = 0;
  ASSERT_EQ(init_drivers(&count, nullptr, &desc), ZE_RESULT_SUCCESS);
  ASSERT_GE(count, 1u);
  std::vector<ze_driver_handle_t> drivers(count, nullptr);
  ASSERT_EQ(init_drivers(&count, drivers.data(), &desc), ZE_RESULT_SUCCESS);
  for (ze_driver_handle_t d : drivers) {
    std::uint32_t devices = 0;
    EXPECT_EQ(zeDeviceGet(d, &devices, nullptr), ZE_RESULT_SUCCESS);
    EXPECT_GE(devices, 1u);
  }
  desc.flags = 0;
  EXPECT_EQ(init_drivers(&count, nullptr, &desc), ZE_RESULT_ERROR_INVALID_ENUMERATION);
}

// After a failing call the thread's last error has a description.
TEST_F(ZeNewerEntryPoints, LastErrorDescriptionAfterAFailingCall) {
  ACCEL_LOADER_ENTRY(last_error, newer::PFN_zeDriverGetLastErrorDescription,
                     "zeDriverGetLastErrorDescription");
  ze_device_handle_t none[1] = {nullptr};
  ASSERT_EQ(zeDeviceGetSubDevices(device_, nullptr, none), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  const char* text = nullptr;
  ASSERT_EQ(last_error(driver_, &text), ZE_RESULT_SUCCESS);
  ASSERT_NE(text, nullptr);
  EXPECT_NE(std::string(text), "");
  EXPECT_EQ(last_error(driver_, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

// Each sub-device's root device is the device it was listed under.
TEST_F(ZeNewerEntryPoints, RootDeviceOfEachSubDevice) {
  ACCEL_LOADER_ENTRY(root_of, newer::PFN_zeDeviceGetRootDevice, "zeDeviceGetRootDevice");
  ze_device_handle_t root = nullptr;
  EXPECT_EQ(root_of(device_, &root), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  ASSERT_EQ(zeDeviceGetSubDevices(device_, &count, nullptr), ZE_RESULT_SUCCESS);
  std::vector<ze_device_handle_t> subs(count, nullptr);
  ASSERT_EQ(zeDeviceGetSubDevices(device_, &count, subs.data()), ZE_RESULT_SUCCESS);
  for (ze_device_handle_t sub : subs) {
    root = nullptr;
    ASSERT_EQ(root_of(sub, &root), ZE_RESULT_SUCCESS);
    EXPECT_EQ(root, device_);
  }
  EXPECT_EQ(root_of(device_, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

#undef ACCEL_LOADER_ENTRY

}  // namespace
}  // namespace accel::ze_driver_test
