// accel_common/numbers.h: numbers typed by a user are read strictly.
#include "accel_common/numbers.h"

#include <gtest/gtest.h>

namespace accel::common {
namespace {

TEST(ParseUnsignedDecimal, AcceptsDigitsUpToTwoToTheSixtyFourMinusOne) {
  EXPECT_EQ(parse_unsigned_decimal("0"), 0u);
  EXPECT_EQ(parse_unsigned_decimal("12345"), 12345u);
  EXPECT_EQ(parse_unsigned_decimal("18446744073709551615"), 18446744073709551615u);
}

TEST(ParseUnsignedDecimal, RefusesWhatWouldBeWrappedCappedOrCutShort) {
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "12x", "0x10", "1.5",
                          "18446744073709551616", "99999999999999999999999"}) {
    EXPECT_EQ(parse_unsigned_decimal(bad), std::nullopt) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace accel::common
