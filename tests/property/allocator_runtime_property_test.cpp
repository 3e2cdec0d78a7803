// Properties of the device caching allocator through the public API: the allocator state
// machine (allocator_commands.h) on RuntimeSut (allocator_runtime_sut.h: the simulated
// 2xa100 machine with real stream work and the race detector watching), under the
// adversarial scheduler (ctest sets MOCKDEV_SCHEDULE=adversarial). Run twice: with the
// default settings and with expandable_segments:True (the mock's virtual-memory entry
// points). Each program ends with everything freed, the driver holding nothing and the race
// detector silent. A failure's shrunk program is written as a scenario (allocator_scenario.h).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <string>

#include "accel/accelerator.h"
#include "accel/memory.h"
#include "allocator_commands.h"
#include "allocator_runtime_sut.h"
#include "scenario_recorder.h"

namespace accel::test::alloc_model {
namespace {

constexpr Limits kLimits{
    .devices = kRuntimeDevices, .capacity_bytes = kProgramCapacity, .max_length = 40};

void run_property(const char* name, bool expandable) {
  ASSERT_EQ(device_count(), kRuntimeDevices)
      << "this test runs on the simulated 2xa100 machine (ctest sets MOCKDEV_MACHINE)";
  const Driver driver = load_driver();
  ASSERT_TRUE(driver.error.empty()) << driver.error;
  RuntimeCoverage coverage;
  Machine& machine = Machine::get();
  ScenarioRecorder recorder(
      allocator_scenario_kind(machine.capacity, machine.context_reserve, kRuntimeDevices));
  const std::string description = std::string("device allocator through the public API, ") + name;
  const bool ok = rc::check(description, [&] {
    const Program program = *gen_program(kLimits);
    recorder.run([&] {
      RuntimeSut sut(machine, coverage, expandable, recorder);
      run_program(program, kLimits, sut);
      const Violations end = sut.finish();
      if (!end.empty())
        RC_FAIL("after freeing everything and emptying the cache:" + join_violations(end));
      ++coverage.programs;
    });
  });
  recorder.report(description, ok);
  set_allocator_settings("expandable_segments:False");
  std::cout << "[ property ] device allocator through the public API (2xa100, adversarial, " << name
            << "): " << coverage.programs << " programs, " << coverage.commands << " commands, "
            << coverage.allocations << " allocations, " << coverage.ooms
            << " OOMs (each justified), " << coverage.pending_frees
            << " frees pending other streams, " << coverage.host_functions
            << " host functions, no race" << std::endl;
  EXPECT_TRUE(ok);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

TEST(AllocatorRuntimeProperty, TwoDevicesUnderAdversarialSchedule) {
  run_property("default settings", false);
}
TEST(AllocatorRuntimeProperty, ExpandableSegmentsUnderAdversarialSchedule) {
  run_property("expandable segments", true);
}

}  // namespace
}  // namespace accel::test::alloc_model
