// --machine without the simulated hardware, and the preset machine files.
#include "mock_machine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

// The mock Level Zero driver is optional beside the CUDA facades: found when present
// (then --machine sets ZE_ENABLE_ALT_DRIVERS to it), empty when this build has none.
// The file names are the facades' default names (tools/CMakeLists.txt).
TEST(MockSelection, FindsTheLevelZeroDriverBesideTheFacadesWhenBuilt) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "accel_mock_selection_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* name : {"libcuda.so.1", "libnvidia-ml.so.1"}) std::ofstream(dir / name) << "x";
  MockSelection without = mock_selection(dir.string(), "mixed_vendors");
  EXPECT_EQ(without.driver_path, (dir / "libcuda.so.1").string());
  EXPECT_EQ(without.level_zero_driver_path, "");
  std::ofstream(dir / "libze_mock.so") << "x";
  MockSelection with = mock_selection(dir.string(), "mixed_vendors");
  EXPECT_EQ(with.level_zero_driver_path, (dir / "libze_mock.so").string());
  EXPECT_EQ(with.machine, "mixed_vendors");
  fs::remove_all(dir);
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
