// ACCEL_PROPERTY_SCALE's parsing and its rewrite of RC_PARAMS (Note [Property scale] in
// property_scale.h); the ctest property.scale_malformed_is_an_error checks the refusal.

#include "property_scale.h"

#include <gtest/gtest.h>

namespace accel::test {
namespace {

TEST(PropertyScale, TakesIntegersFrom1To1000Only) {
  EXPECT_EQ(parse_property_scale("1"), 1);
  EXPECT_EQ(parse_property_scale("1000"), 1000);
  EXPECT_EQ(parse_property_scale("0"), std::nullopt);
  EXPECT_EQ(parse_property_scale("1001"), std::nullopt);
  EXPECT_EQ(parse_property_scale("10x"), std::nullopt);
  EXPECT_EQ(parse_property_scale("-5"), std::nullopt);
  EXPECT_EQ(parse_property_scale(" 5"), std::nullopt);
}

TEST(PropertyScale, MultipliesMaxSuccessAndKeepsTheOtherParameters) {
  EXPECT_EQ(scaled_rc_params("max_success=1000", 10), "max_success=10000");
  EXPECT_EQ(scaled_rc_params("", 3), "max_success=300");  // rapidcheck's default, 100
  EXPECT_EQ(scaled_rc_params("seed=7 max_success=50 max_size=20", 2),
            "seed=7 max_size=20 max_success=100");
  EXPECT_EQ(scaled_rc_params("verbose_progress=1", 4), "verbose_progress=1 max_success=400");
}

}  // namespace
}  // namespace accel::test
