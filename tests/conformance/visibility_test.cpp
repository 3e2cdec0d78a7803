// Conformance: the visible-devices variable, once per backend profile, against whatever
// devices the profile has (the physical UUIDs come from NVML, bypassing the runtime). For
// each value: the fork-safe count before initialisation (mock: without cuInit), the count
// after init(), and which physical device each visible index is. The full table of
// CUDA_VISIBLE_DEVICES spellings on a machine with chosen UUIDs is in
// visible_devices_test.cpp (simulated hardware only).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using Visibility = ConformanceTest;

void check_visible(const BackendProfile& profile, const std::string& value,
                   const std::vector<int>& expected, int minimum_devices) {
  std::string error;
  const std::vector<std::string> uuids = physical_device_uuids(profile, &error);
  if (uuids.empty()) fail_in_child("cannot ask the physical devices' UUIDs: " + error);
  if (static_cast<int>(uuids.size()) < minimum_devices) {
    skip_in_child("needs at least " + std::to_string(minimum_devices) + " devices, profile " +
                  profile.name + " has " + std::to_string(uuids.size()));
  }
  const std::string shown = profile.visibility_variable + "='" + value + "'";
  EXPECT_EQ(device_count(), static_cast<int>(expected.size())) << shown << " before init";
  EXPECT_EQ(is_available(), !expected.empty()) << shown;
  EXPECT_FALSE(is_initialized());
  if (profile.on_mock) {
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u) << shown;
  }
  if (expected.empty()) return;  // init() with no device fails; nothing more to compare
  init();
  ASSERT_EQ(device_count(), static_cast<int>(expected.size())) << shown << " after init";
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(get_device_properties(static_cast<int>(i)).uuid, uuids.at(expected[i]))
        << shown << ": visible device " << i << " should be physical device " << expected[i];
  }
}

TEST_P(Visibility, UnsetShowsEveryDevice) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        const int count = require_physical_devices(p, 1);
        std::vector<int> all;
        for (int i = 0; i < count; ++i) all.push_back(i);
        std::string error;
        const std::vector<std::string> uuids = physical_device_uuids(p, &error);
        ASSERT_EQ(static_cast<int>(uuids.size()), count) << error;
        EXPECT_EQ(device_count(), count);
        init();
        for (int i = 0; i < count; ++i) EXPECT_EQ(get_device_properties(i).uuid, uuids[i]);
      },
      {{p.visibility_variable, std::nullopt}});
}

TEST_P(Visibility, ReorderedOrdinals) {
  const BackendProfile& p = profile();
  run_isolated([&p] { check_visible(p, "1,0", {1, 0}, 2); }, {{p.visibility_variable, "1,0"}});
}

TEST_P(Visibility, DuplicateOrdinalHidesEveryDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] { check_visible(p, "0,0", {}, 1); }, {{p.visibility_variable, "0,0"}});
}

TEST_P(Visibility, NegativeOrdinalEndsTheList) {
  const BackendProfile& p = profile();
  run_isolated([&p] { check_visible(p, "1,-1,0", {1}, 2); }, {{p.visibility_variable, "1,-1,0"}});
}

TEST_P(Visibility, EmptyValueHidesEveryDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] { check_visible(p, "", {}, 1); }, {{p.visibility_variable, ""}});
}

// The list is cut at the first ordinal that is not a device. Run with the machine's own
// count, so it holds on any machine.
TEST_P(Visibility, OrdinalPastTheLastDeviceCutsTheList) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    const std::string value = "1," + std::to_string(count) + ",0";
    setenv(p.visibility_variable.c_str(), value.c_str(), 1);
    check_visible(p, value, {1}, 2);
  });
}

TEST_P(Visibility, UuidSelectsThatDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    std::string error;
    const std::vector<std::string> uuids = physical_device_uuids(p, &error);
    ASSERT_EQ(static_cast<int>(uuids.size()), count) << error;
    const std::string value = uuids[count - 1] + "," + uuids[0];
    setenv(p.visibility_variable.c_str(), value.c_str(), 1);
    check_visible(p, value, {count - 1, 0}, 2);
  });
}

// Issue 5, item 6: the runtime's parser saturated ordinals at INT_MAX, so two distinct
// out-of-range ordinals looked like duplicates (count 0 before initialisation, 1 after).
// An out-of-range ordinal ends the list; the real driver agrees (docs/HARDWARE.md).
TEST_P(Visibility, HugeDistinctOrdinalsAreNotDuplicates) {
  const BackendProfile& p = profile();
  run_isolated([&p] { check_visible(p, "0,3000000000,4000000000", {0}, 1); },
               {{p.visibility_variable, "0,3000000000,4000000000"}});
}

ACCEL_INSTANTIATE_CONFORMANCE(Visibility);

}  // namespace
}  // namespace accel::test
