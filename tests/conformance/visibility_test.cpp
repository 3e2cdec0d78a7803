// Conformance: the visible-devices variable, once per backend profile, against whatever
// devices the profile has (the physical UUIDs come from the profile's ground truth: NVML,
// or the Level Zero loader in a throw-away child, bypassing the runtime). For each value:
// the fork-safe count before initialisation (mock: without cuInit/zeInit), the count after
// init(), and which physical device each visible index is. The values and what they must
// show are the profile's visibility_rows: the rules differ per backend. The full table of
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

// Runs one row in the current (child) process: the visibility variable is set to `value`
// now, after the ground truth was asked; `expected` holds indices into it.
void check_visible(const BackendProfile& profile, const std::string& value,
                   const std::vector<int>& expected, const std::vector<std::string>& uuids,
                   const std::string& why) {
  setenv(profile.visibility_variable.c_str(), value.c_str(), 1);
  const std::string shown = profile.visibility_variable + "='" + value + "' (" + why + ")";
  EXPECT_EQ(device_count(), static_cast<int>(expected.size())) << shown << " before init";
  EXPECT_EQ(is_available(), !expected.empty()) << shown;
  EXPECT_FALSE(is_initialized());
  if (profile.on_mock) {
    EXPECT_EQ(mockdev::control::call_count(profile.init_entry_point), 0u) << shown;
  }
  if (expected.empty()) return;  // init() with no device fails; nothing more to compare
  init();
  ASSERT_EQ(device_count(), static_cast<int>(expected.size())) << shown << " after init";
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(get_device_properties(static_cast<int>(i)).uuid, uuids.at(expected[i]))
        << shown << ": visible device " << i << " should be physical device " << expected[i];
  }
}

// The ground truth in this child's environment (the row's hierarchy), at least `minimum`.
std::vector<std::string> require_uuids(const BackendProfile& profile, int minimum) {
  const PhysicalDevices devices = physical_devices(profile);
  if (devices.count < 0) fail_in_child("cannot ask the physical devices: " + devices.error);
  if (devices.count < minimum) {
    skip_in_child("needs at least " + std::to_string(minimum) + " devices, profile " +
                  profile.name + " has " + std::to_string(devices.count));
  }
  return devices.uuids;
}

TEST_P(Visibility, UnsetShowsEveryDevice) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        const std::vector<std::string> uuids = require_uuids(p, 1);
        const int count = static_cast<int>(uuids.size());
        EXPECT_EQ(device_count(), count);
        init();
        ASSERT_EQ(device_count(), count);
        for (int i = 0; i < count; ++i) EXPECT_EQ(get_device_properties(i).uuid, uuids[i]);
      },
      {{p.visibility_variable, std::nullopt}});
}

TEST_P(Visibility, UuidSelectsThatDevice) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_BRANCH(visibility_accepts_uuids,
                       "the variable has no UUID syntax (ZE_AFFINITY_MASK takes N and N.M)");
  run_isolated(
      [&p] {
        const std::vector<std::string> uuids = require_uuids(p, 2);
        const int count = static_cast<int>(uuids.size());
        check_visible(p, uuids[count - 1] + "," + uuids[0], {count - 1, 0}, uuids,
                      "a UUID names that device");
      },
      {{p.visibility_variable, std::nullopt}});
}

// The rows of the profile's visibility table (visibility_rows: CUDA_VISIBLE_DEVICES rows vs
// ZE_AFFINITY_MASK rows), one test each: Conformance/VisibilityTable.Row/<profile>_<row>.
using RowParam = std::pair<const BackendProfile*, std::size_t>;

std::vector<RowParam> all_rows() {
  std::vector<RowParam> rows;
  for (const BackendProfile* profile : selected_profiles()) {
    for (std::size_t i = 0; i < profile->visibility_rows.size(); ++i) rows.emplace_back(profile, i);
  }
  return rows;
}

class VisibilityTable : public ::testing::TestWithParam<RowParam> {};

TEST_P(VisibilityTable, Row) {
  const BackendProfile& p = *GetParam().first;
  const VisibilityRow& row = p.visibility_rows.at(GetParam().second);
  if (const auto defect = p.known_mock_defects.find(row.name);
      defect != p.known_mock_defects.end()) {
    GTEST_SKIP() << "SKIPPED on profile " << p.name << ": KNOWN DEFECT: " << defect->second;
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> environment = {
      {p.visibility_variable, std::nullopt}};
  for (const auto& [name, value] : row.environment) environment.emplace_back(name, value);
  run_isolated(
      p,
      [&p, &row] {
        const std::vector<std::string> uuids = require_uuids(p, row.minimum_devices);
        const int count = static_cast<int>(uuids.size());
        std::string value = row.value;
        if (const std::size_t at = value.find("<N>"); at != std::string::npos) {
          value.replace(at, 3, std::to_string(count));
        }
        std::vector<int> expected = row.expected;
        if (expected == std::vector<int>{-1}) {  // every device
          expected.clear();
          for (int i = 0; i < count; ++i) expected.push_back(i);
        }
        check_visible(p, value, expected, uuids, row.why);
      },
      environment);
}

INSTANTIATE_TEST_SUITE_P(Conformance, VisibilityTable, ::testing::ValuesIn(all_rows()),
                         [](const ::testing::TestParamInfo<RowParam>& info) {
                           return info.param.first->name + "_" +
                                  info.param.first->visibility_rows.at(info.param.second).name;
                         });

ACCEL_INSTANTIATE_CONFORMANCE(Visibility);

}  // namespace
}  // namespace accel::test
