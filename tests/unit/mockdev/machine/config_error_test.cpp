// A simulated machine that cannot be loaded: run by ctest with a bad MOCKDEV_MACHINE and
// the exact expected configuration error in MOCKDEV_TEST_EXPECTED_ERROR. The engine reads
// the variable once, at its first use, so each bad value is its own process.

#include <cstdlib>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

TEST(MockConfigError, DriverAndNvmlRefuseToStartAndSayWhy) {
  const char* expected = std::getenv("MOCKDEV_TEST_EXPECTED_ERROR");
  if (expected == nullptr)
    GTEST_SKIP() << "run through ctest: MOCKDEV_TEST_EXPECTED_ERROR is not set";
  // The first use of the engine is through the driver, as in a real program.
  EXPECT_EQ(cuda().cuInit(0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvml().nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  std::optional<std::string> error = control::config_error();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, expected);
  EXPECT_TRUE(control::machine().devices.empty());
  EXPECT_FALSE(control::driver_initialized());
  int version = 0;
  EXPECT_EQ(cuda().cuDriverGetVersion(&version), CUDA_SUCCESS);  // needs no machine
  // A test may still install a good machine.
  control::reset(load_machine("1xa100"));
  EXPECT_FALSE(control::config_error().has_value());
  EXPECT_EQ(cuda().cuInit(0), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
