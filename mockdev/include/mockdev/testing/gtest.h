#pragma once
// A GoogleTest fixture for users' own tests on the simulated hardware. Header-only: link
// accel::mockdev and GTest::gtest (find_package(GTest)); run the test binary with the mock
// driver loaded, e.g. registered with accel_add_mock_test() (AccelTesting.cmake, installed
// with the package), which sets ACCEL_CUDA_DRIVER, ACCEL_NVML_LIBRARY and MOCKDEV_MACHINE.
//
//   #include <mockdev/testing/gtest.h>
//   using MyTest = mockdev::testing::MockMachineTest;
//   TEST_F(MyTest, NeverInitialisesTheDriver) {
//     EXPECT_EQ(accel::device_count(), 4);
//     EXPECT_EQ(calls("cuInit"), 0u);
//   }
//
// Before every test the simulated machine is "power-cycled" (mockdev::control::reset): the
// machine named by MOCKDEV_MACHINE (or the one a subclass returns from test_machine()) is
// installed afresh, with no contexts, allocations or run-time faults, the driver and NVML
// uninitialised and the call counters at zero.
//
// One process per test when the tests use accel's runtime: the runtime initialises once per
// process, as PyTorch does, and a reset under an initialised runtime leaves it holding
// objects of the previous machine. Register each test as its own ctest entry (ctest's
// gtest_discover_tests, or accel_add_mock_test with --gtest_filter=Suite.Test). Tests that
// call the driver entry points directly, or only read counters, may share a process.
//
// The control API (mockdev/control.h) is the process-wide engine libmockdev.so, the same one
// the mock libcuda.so.1 and libnvidia-ml.so.1 loaded by the runtime use, so a test reads the
// very counters and faults the runtime's driver calls see.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace mockdev::testing {

class MockMachineTest : public ::testing::Test {
 protected:
  // The machine each test starts on: MOCKDEV_MACHINE (a preset or a machine-file path;
  // kDefaultPreset when unset). Override to pin one in code. A machine file that cannot be
  // loaded fails the test with the file's error (MachineFileError).
  virtual MachineSpec test_machine() {
    return load_machine(machine_name_from_environment());
  }

  void SetUp() override {
    try {
      control::reset(test_machine());
    } catch (const MachineFileError& e) {
      FAIL() << "mockdev::testing::MockMachineTest: cannot load the machine: " << e.what();
    }
  }

  // Switches to another machine in the middle of a test (a power cycle).
  static void use_machine(std::string_view preset_or_path) {
    control::reset(load_machine(preset_or_path));
  }
  static void use_machine_yaml(std::string_view yaml) {
    control::reset(parse_machine(yaml, "(test machine)"));
  }

  // Calls of one entry point since the reset, failing ones included, by exported symbol
  // ("cuMemGetInfo_v2") or base name ("cuMemGetInfo"); all counters by exported symbol.
  static std::uint64_t calls(std::string_view entry_point) {
    return control::call_count(entry_point);
  }
  static std::map<std::string, std::uint64_t> all_calls() { return control::call_counts(); }

  // Fail the nth call from now of `entry_point` with `code` (nth 0: every call).
  static void fail_call(std::string_view entry_point, std::uint64_t nth, int code) {
    control::fail_call(entry_point, nth, code);
  }

  static control::LiveObjects live_objects() { return control::live_objects(); }
  static bool driver_initialized() { return control::driver_initialized(); }

  // Expects no retained primary context and no allocation (the runtime keeps the primary
  // contexts it used until the process ends, so this is for tests of driver-level code).
  static void expect_no_live_objects() {
    const control::LiveObjects live = control::live_objects();
    std::string objects;
    for (const std::string& d : live.descriptions) objects += "\n  " + d;
    EXPECT_EQ(live.primary_contexts_active + live.allocations, 0u)
        << "driver objects still alive:" << objects;
  }
};

}  // namespace mockdev::testing
