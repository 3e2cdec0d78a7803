// Property: under any program of device switches, guards (empty, valid, out of range,
// exceptions inside) and queries on 3 threads, every thread's current device matches the
// model after every step. Run once on the simulated 4xh100 machine through the real CUDA
// backend, and once on the core alone with a mocked backend.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <memory>
#include <optional>

#include "accel/accelerator.h"
#include "core/backend_override.h"
#include "device_index_model.h"
#include "fake_machine.h"
#include "mock_backend.h"

namespace accel::test {
namespace {

using device_model::Coverage;

void report(const char* where, const Coverage& coverage) {
  std::cout << "[ property ] device-index state machine (" << where << "): " << coverage.programs
            << " programs, " << coverage.commands << " commands on " << device_model::kThreads
            << " threads, " << coverage.rejected << " rejected as predicted" << std::endl;
}

void expect_enough_programs(const Coverage& coverage) {
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

TEST(DeviceIndexStateMachine, SimulatedMachineWithCudaBackend) {
  ASSERT_EQ(device_count(), device_model::kDevices)
      << "this test runs on the simulated 4xh100 machine: set MOCKDEV_MACHINE=4xh100 and point "
         "ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY at the mock facades (ctest does)";
  Coverage coverage;
  EXPECT_TRUE(device_model::check_device_index_programs(
      "device index programs on the simulated machine", coverage));
  report("cuda backend on 4xh100", coverage);
  expect_enough_programs(coverage);
}

TEST(DeviceIndexStateMachine, MockedBackend) {
  auto machine = std::make_shared<FakeMachine>(device_model::kDevices);
  auto backend = std::make_unique<::testing::NiceMock<MockBackend>>();
  backend->install_defaults(machine);
  detail::ScopedBackendOverride override_backend(std::move(backend));
  Coverage coverage;
  EXPECT_TRUE(device_model::check_device_index_programs("device index programs on a mocked backend",
                                                        coverage));
  report("mocked backend", coverage);
  expect_enough_programs(coverage);
}

}  // namespace
}  // namespace accel::test
