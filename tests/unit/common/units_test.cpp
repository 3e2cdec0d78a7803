// accel_common/units.h: the one spelling of sizes and addresses in tables and messages.
#include "accel_common/units.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace accel::common {
namespace {

TEST(BinarySize, UsesBinaryUnitsWithTwoDecimals) {
  EXPECT_EQ(binary_size(0), "0 B");
  EXPECT_EQ(binary_size(1023), "1023 B");
  EXPECT_EQ(binary_size(1024), "1.00 KiB");
  EXPECT_EQ(binary_size(512ULL << 20), "512.00 MiB");
  EXPECT_EQ(binary_size(85520809984ULL), "79.65 GiB");
  EXPECT_EQ(binary_size(80ULL << 30), "80.00 GiB");
  EXPECT_EQ(binary_size(3ULL << 40), "3.00 TiB");
  EXPECT_EQ(binary_size(512), "512 B");
  EXPECT_EQ(binary_size(1536), "1.50 KiB");
  EXPECT_EQ(binary_size(std::uint64_t{1} << 48), "256.00 TiB");
  EXPECT_EQ(binary_size(std::uint64_t{3} << 50), "3.00 PiB");
  EXPECT_EQ(binary_size(UINT64_MAX), "16.00 EiB");
}

TEST(HexAddress, IsLowerCaseHexWithoutPadding) {
  EXPECT_EQ(hex_address(0), "0x0");
  EXPECT_EQ(hex_address(0x7f00dead0000ULL), "0x7f00dead0000");
  EXPECT_EQ(hex_address(UINT64_MAX), "0xffffffffffffffff");
}

}  // namespace
}  // namespace accel::common
