// The installed gtest fixture <mockdev/testing/gtest.h>, run in this build tree through
// accel_add_mock_test() (CMakeLists.txt: MACHINE 2xa100), which must have set the mock's
// variables. The tests run in order in one process: the first leaves driver state behind,
// the second proves the fixture's reset removed it.

#include <accel/accel.h>
#include <mockdev/testing/gtest.h>

#include <cstdlib>
#include <string>

#include "driver_loader.h"

namespace mockdev::testing {
namespace {

using namespace accel::cuda_abi;  // NOLINT

using FixtureInTree = MockMachineTest;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "(unset)" : value;
}

TEST_F(FixtureInTree, AccelAddMockTestSetTheMockVariables) {
  EXPECT_EQ(env("ACCEL_CUDA_DRIVER"), MOCKDEV_TEST_CUDA_DRIVER);
  EXPECT_EQ(env("ACCEL_NVML_LIBRARY"), MOCKDEV_TEST_NVML_LIBRARY);
  EXPECT_EQ(env("MOCKDEV_MACHINE"), "2xa100");
  EXPECT_EQ(env("CUDA_VISIBLE_DEVICES"), "(unset)");
  EXPECT_EQ(env("ACCEL_BACKEND"), "(unset)");
  EXPECT_EQ(env("FIXTURE_TEST_ENV"), "a=b");
  EXPECT_EQ(control::machine().name, "2xa100");
  // The runtime loads the same mock: it counts through NVML, without cuInit.
  EXPECT_EQ(accel::device_count(), 2);
  EXPECT_EQ(calls("cuInit"), 0u);
}

TEST_F(FixtureInTree, ATestLeavesStateBehind) {
  ASSERT_EQ(cuda().cuInit(0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuda().cuDevicePrimaryCtxRetain(&ctx, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuda().cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cuda().cuMemAlloc_v2(&p, 64), CUDA_SUCCESS);
  fail_call("cuCtxSynchronize", 0, CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuda().cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(calls("cuMemAlloc"), 1u);
  EXPECT_EQ(live_objects().allocations, 1u);
  EXPECT_TRUE(driver_initialized());
}

TEST_F(FixtureInTree, TheNextTestStartsOnAFreshMachine) {
  EXPECT_TRUE(all_calls().empty());
  EXPECT_FALSE(driver_initialized());
  expect_no_live_objects();
  ASSERT_EQ(cuda().cuInit(0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cuda().cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuda().cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  EXPECT_EQ(cuda().cuCtxSynchronize(), CUDA_SUCCESS);  // the fault is gone
  EXPECT_EQ(cuda().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  expect_no_live_objects();
  EXPECT_EQ(all_calls(), (std::map<std::string, std::uint64_t>{{"cuInit", 1},
                                                               {"cuDevicePrimaryCtxRetain", 1},
                                                               {"cuCtxSetCurrent", 1},
                                                               {"cuCtxSynchronize", 1},
                                                               {"cuDevicePrimaryCtxRelease_v2", 1}}));
}

// A subclass chooses the machine in code.
class FixtureWithOwnMachine : public MockMachineTest {
 protected:
  MachineSpec test_machine() override { return load_machine("mixed"); }
};

TEST_F(FixtureWithOwnMachine, UsesTheMachineItChose) {
  EXPECT_EQ(control::machine().name, "mixed");
  use_machine("none");
  EXPECT_EQ(control::machine().name, "none");
}

}  // namespace
}  // namespace mockdev::testing
