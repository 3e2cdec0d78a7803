// ACCEL_REQUIRE_DEVICES: parsing and the shortfall message (core/device_requirement.h).
// Pure functions; the end-to-end behaviour is in tests/conformance/bad_environment_test.cpp.
#include "core/device_requirement.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

namespace accel::detail {
namespace {

std::string malformed(std::string_view value) {
  return "ACCEL_REQUIRE_DEVICES='" + std::string(value) +
         "': expected the number of devices the program requires (a whole number from 0 to "
         "1000000, such as 2)";
}

TEST(DeviceRequirementTest, UnsetOrEmptyRequiresNothing) {
  Result<int> unset = parse_required_devices(std::nullopt);
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(*unset, 0);
  Result<int> empty = parse_required_devices("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, 0);
}

TEST(DeviceRequirementTest, WholeNumbersAreAccepted) {
  for (auto [text, value] : {std::pair<const char*, int>{"0", 0},
                             {"1", 1},
                             {"8", 8},
                             {"0128", 128},
                             {"1000000", 1000000}}) {
    Result<int> parsed = parse_required_devices(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
    EXPECT_EQ(*parsed, value) << text;
  }
}

TEST(DeviceRequirementTest, AnythingElseIsAConfigErrorNamingTheValue) {
  for (const char* text :
       {"two", "-1", "+2", " 2", "2 ", "2x", "1.5", "0x4", "1000001", "99999999999999999999"}) {
    Result<int> parsed = parse_required_devices(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().kind(), ErrorKind::kConfig) << text;
    EXPECT_EQ(parsed.status().message(), malformed(text));
  }
}

TEST(DeviceRequirementTest, ShortfallSaysRequiredVisibleAndWhy) {
  Status one = required_devices_error(1, 0, "No CUDA GPUs are available");
  EXPECT_EQ(one.kind(), ErrorKind::kConfig);
  EXPECT_EQ(one.message(),
            "ACCEL_REQUIRE_DEVICES=1: 1 device required, 0 visible (No CUDA GPUs are available)");
  EXPECT_EQ(required_devices_error(4, 2, "").message(),
            "ACCEL_REQUIRE_DEVICES=4: 4 devices required, 2 visible");
}

}  // namespace
}  // namespace accel::detail
