// The control API: reset, machine selection from the environment, live objects.

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockControl = MockTest;

TEST_F(MockControl, ResetInstallsTheMachineAndClearsEverything) {
  init_and_make_current(0);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 1024), CUDA_SUCCESS);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  control::fail_call("cuCtxSynchronize", 0, CUDA_ERROR_UNKNOWN);
  control::set_sticky_error(0, CUDA_ERROR_ILLEGAL_ADDRESS);

  control::reset(load_machine("2xa100"));
  EXPECT_EQ(control::machine().name, "2xa100");
  EXPECT_EQ(control::machine().devices.size(), 2u);
  EXPECT_FALSE(control::driver_initialized());
  EXPECT_FALSE(control::forked_after_init());
  EXPECT_FALSE(control::config_error().has_value());
  EXPECT_TRUE(control::call_counts().empty());
  control::LiveObjects live = control::live_objects();
  EXPECT_EQ(live.primary_contexts_active, 0u);
  EXPECT_EQ(live.allocations, 0u);
  EXPECT_EQ(live.allocated_bytes, 0u);
  EXPECT_TRUE(live.descriptions.empty());
  EXPECT_EQ(control::used_bytes(0), 0u);
  unsigned n = 0;
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
  // Faults are gone with the reset.
  init_and_make_current(0);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(MockControl, ResetFromEnvironment) {
  setenv("MOCKDEV_MACHINE", "mixed", 1);
  control::reset_from_environment();
  EXPECT_EQ(control::machine().name, "mixed");
  EXPECT_EQ(control::machine().source, "preset:mixed");
  setenv("MOCKDEV_MACHINE", "no-such-preset", 1);
  EXPECT_THROW(control::reset_from_environment(), MachineFileError);
  EXPECT_EQ(control::machine().name, "mixed");  // unchanged by the failed reset
  unsetenv("MOCKDEV_MACHINE");
  control::reset_from_environment();
  EXPECT_EQ(control::machine().name, std::string(kDefaultPreset));
  setenv("MOCKDEV_MACHINE", "4xh100", 1);
}

TEST_F(MockControl, MachineFromTheEnvironmentAtFirstUse) {
  // ctest runs this binary with MOCKDEV_MACHINE=4xh100, and SetUp installed the same.
  EXPECT_EQ(control::machine().name, "4xh100");
  EXPECT_FALSE(control::config_error().has_value());
}

TEST_F(MockControl, ScriptedFaultsAreAddedNotReplaced) {
  init_and_make_current(0);
  control::fail_call("cuCtxSynchronize", 1, CUDA_ERROR_UNKNOWN);
  control::fail_call("cuCtxSynchronize", 2, CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
