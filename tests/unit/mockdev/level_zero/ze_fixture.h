#pragma once
// The fixture of the tests that reach the mock Level Zero driver through the real loader.
// The loader initialises once per process and the driver reads its variables at
// zeInit, so every test needs a fresh process: ctest runs each gtest test on its own
// (accel_add_gtest); running the binary with several of these tests at once fails loudly.

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>

#include "mockdev/control.h"
#include "mockdev/level_zero.h"
#include "ze_device_lists.h"

namespace ze_test {

inline bool& loader_used_in_this_process() {
  static bool used = false;
  return used;
}

class ZeTest : public ::testing::Test {
 protected:
  // Installs `machine` and clears every variable the driver reads at zeInit.
  void use_machine(const mockdev::MachineSpec& machine) {
    mockdev::control::reset(machine);
  }
  void SetUp() override {
    ASSERT_FALSE(loader_used_in_this_process())
        << "each Level Zero loader test needs its own process: run it through ctest, or "
           "pass --gtest_filter with one test";
    loader_used_in_this_process() = true;
    for (const char* name : {"ZE_AFFINITY_MASK", "ZE_FLAT_DEVICE_HIERARCHY",
                             "ZE_ENABLE_PCI_ID_DEVICE_ORDER", "ZES_ENABLE_SYSMAN"})
      unsetenv(name);
    ASSERT_NE(std::getenv("ZE_ENABLE_ALT_DRIVERS"), nullptr)
        << "ZE_ENABLE_ALT_DRIVERS must name the mock driver (ctest sets it)";
    use_machine(two_cards_two_tiles());
  }
};

}  // namespace ze_test
