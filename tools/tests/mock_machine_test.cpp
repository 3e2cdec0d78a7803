// --machine without the simulated hardware, and the preset machine files.
#include "mock_machine.h"

#include <gtest/gtest.h>

#include <string>

namespace accel::tools {
namespace {

std::string no_mock_message(const std::string& facade_dir) {
  try {
    (void)mock_selection(facade_dir, "4xh100");
  } catch (const NoMockError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MockSelection, AnInstallWithoutMockdevSaysSo) {
  EXPECT_EQ(no_mock_message(""),
            "this accel install has no simulated hardware (mockdev): --machine needs it");
  EXPECT_EQ(no_mock_message("/nonexistent-accel-dir"),
            "this accel install has no simulated hardware (mockdev): --machine needs it (no "
            "mock driver file /nonexistent-accel-dir/libcuda.so.1; build mockdev, or set "
            "ACCEL_MOCKDEV_DIR)");
}

TEST(Presets, ShowUnknownNamesThePresets) {
  try {
    (void)preset_text("9xnothing");
    FAIL() << "no error";
  } catch (const UnknownPresetError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("no preset machine '9xnothing' (presets: "))
        << e.what();
  }
}

}  // namespace
}  // namespace accel::tools
