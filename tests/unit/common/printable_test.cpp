// accel_common/printable.h: which characters are control characters, and how each is shown.
#include "accel_common/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace accel::common {
namespace {

TEST(Printable, FindsTheFirstControlCharacter) {
  EXPECT_EQ(find_control_character("NVIDIA H100 80GB HBM3"), std::string_view::npos);
  EXPECT_EQ(find_control_character(""), std::string_view::npos);
  EXPECT_EQ(find_control_character("ab\ncd"), 2u);
  EXPECT_EQ(find_control_character(std::string_view("a\0b", 3)), 1u);
  EXPECT_EQ(find_control_character("\x1b[31m"), 0u);
  EXPECT_EQ(find_control_character("tab\there"), 3u);
  EXPECT_EQ(find_control_character("del\x7f"), 3u);
  EXPECT_EQ(find_control_character("\x1f"), 0u);
  // Space and bytes of UTF-8 text are not control characters.
  EXPECT_EQ(find_control_character(" Intel(R) Iris(R) Xe \xc3\xa9"), std::string_view::npos);
}

TEST(Printable, EscapesEachControlCharacterAndNothingElse) {
  EXPECT_EQ(printable("plain \\ text"), "plain \\ text");
  EXPECT_EQ(printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(printable(std::string_view("a\0b", 3)), "a\\0b");
  EXPECT_EQ(printable("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable("\x01\x1f\x7f"), "\\x01\\x1f\\x7f");
  EXPECT_EQ(printable("\xc3\xa9"), "\xc3\xa9");
}

}  // namespace
}  // namespace accel::common
