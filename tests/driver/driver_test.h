#pragma once
// The CUDA driver conformance suite's fixture: rules of the public CUDA driver API, checked
// by calling a driver directly, with no runtime in between. One binary, two profiles
// (ACCEL_DRIVER_PROFILE):
//   cuda_mock  (default) the simulated libcuda.so.1 of this build, on the machine
//              MOCKDEV_MACHINE names (ctest: one entry per test, label unit);
//   cuda_real  the system's driver (ACCEL_CUDA_DRIVER, else libcuda.so.1), label hardware:
//              without a driver that initialises and has a device, every test skips with
//              "no real CUDA device: driver conformance did not run (...)".
// A test states the rule as the documentation gives it (or marks it [inferred] in
// docs/HARDWARE.md) and checks it the same way on both, so a GPU run confirms or refutes
// the simulation. Nothing here uses the simulated hardware's control API: a rule that needs
// it is a mockdev unit test (tests/unit/mockdev).
//
// Each test runs in a fresh process (ctest), so cuInit, contexts and the per-thread state
// start afresh; the fixture calls cuInit and makes device 0's primary context current.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "abi_loader.h"
#include "accel_abi/cuda_driver.h"

namespace accel::driver_test {

using namespace accel::cuda_abi;  // NOLINT: the tests read best with the vendor's names

class DriverTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The driver under test, loaded once per process.
  static const test::CudaEntryPoints& cu();
  // Whether the profile is cuda_mock (the simulated driver).
  static bool on_mock();
  // Of `symbols`, those the driver does not export, joined with ", " ("" when none is
  // missing); see ACCEL_REQUIRE_SYMBOLS.
  static std::string missing(std::initializer_list<std::string_view> symbols);

  // The number of devices, and device 0's primary context (current on the test's thread).
  int device_count = 0;
  CUcontext primary = nullptr;
  CUdevice device = 0;
};

// cuGetErrorName's text for `rc` ("CUDA_ERROR_INVALID_VALUE"), for failure messages.
std::string name_of(CUresult rc);

// At the start of a test: fails it (cuda_mock: the simulated driver exports every row) or
// skips it naming the symbols (cuda_real: a driver older than the rule's entry points) when
// the driver lacks one of the quoted names.
#define ACCEL_REQUIRE_SYMBOLS(...)                                                     \
  do {                                                                                 \
    const std::string accel_missing_ = missing({__VA_ARGS__});                         \
    if (!accel_missing_.empty()) {                                                     \
      if (on_mock()) FAIL() << "the simulated driver does not export " << accel_missing_; \
      GTEST_SKIP() << "the driver does not export " << accel_missing_;                 \
    }                                                                                  \
  } while (false)

// Asserts that `call` returned `expected`, printing both names on failure.
#define ACCEL_EXPECT_CU(expected, call) \
  EXPECT_EQ(::accel::driver_test::name_of(call), ::accel::driver_test::name_of(expected))
#define ACCEL_ASSERT_CU(expected, call) \
  ASSERT_EQ(::accel::driver_test::name_of(call), ::accel::driver_test::name_of(expected))

}  // namespace accel::driver_test
