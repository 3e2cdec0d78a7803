#pragma once
// The fixture of the simulated hardware's own tests: the shipped MockMachineTest
// (mockdev/testing/gtest.h, as a package user gets it) pinned to the 4xh100 preset with
// CUDA_VISIBLE_DEVICES unset, so tests in one process never see each other's driver state,
// plus the driver tables of tests/unit/mockdev/support/driver_loader.h.

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "driver_loader.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"
#include "mockdev/testing/gtest.h"

namespace mockdev::testing {

using namespace accel::cuda_abi;  // NOLINT: tests read best with the vendor's names
using namespace accel::nvml_abi;  // NOLINT

class MockTest : public MockMachineTest {
 protected:
  MachineSpec test_machine() override { return load_machine("4xh100"); }
  void SetUp() override {
    unsetenv("CUDA_VISIBLE_DEVICES");
    MockMachineTest::SetUp();
  }
  void TearDown() override { unsetenv("CUDA_VISIBLE_DEVICES"); }

  // A machine file's text, named "test.yaml" in its errors.
  static void use_yaml(std::string_view yaml) { control::reset(parse_machine(yaml, "test.yaml")); }

  static const CudaDriver& cu() { return cuda(); }
  static const NvmlLibrary& nv() { return nvml(); }

  // cuInit, then retain device `dev`'s primary context and make it current.
  static CUcontext init_and_make_current(int dev) {
    EXPECT_EQ(cu().cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    EXPECT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    return ctx;
  }
};

}  // namespace mockdev::testing
