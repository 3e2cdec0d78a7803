// Properties of the device caching allocator core: the allocator state machine
// (allocator_commands.h) on CoreSut (allocator_core_sut.h: the core over the allocator's
// fake provider, checked against the reference model after every command), under three
// families of settings: defaults; max_split_size_mb and roundup_power2_divisions;
// expandable_segments. Each program ends by freeing everything, completing all work and
// emptying the cache, which must leave the provider with nothing handed out. A failing
// program is printed as rapidcheck's shrunk command list with its settings.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <string>

#include "accel/error.h"
#include "allocator_commands.h"
#include "allocator_core_sut.h"
#include "allocator_settings.h"

namespace accel::test::alloc_model {
namespace {

using detail::alloc::AllocatorConfig;
using detail::alloc::DeviceCachingAllocator;

constexpr Limits kLimits{.devices = 1, .capacity_bytes = kCapacity, .max_length = 60};

// Whether the allocator core answers at all (a core whose bodies throw kUnsupported skips).
bool core_is_written() {
  DeviceCachingAllocator probe(make_core_provider(), AllocatorConfig{});
  try {
    probe.free(probe.allocate(512, 0, HostFrame{}), HostFrame{});
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) return false;
  }
  return true;
}

void run_property(const char* name, bool expandable, bool with_limits) {
  if (!core_is_written()) GTEST_SKIP() << "the device allocator core is not written yet";
  CoreCoverage coverage;
  const bool ok = rc::check(std::string("device allocator core, ") + name, [&] {
    const Settings settings = *gen_settings(expandable, with_limits);
    const Program program = *gen_program(kLimits);
    CoreSut sut(settings, coverage);
    const Violations fresh = sut.start();
    if (!fresh.empty()) RC_FAIL("a new allocator:" + join_violations(fresh));
    run_program(program, kLimits, sut);
    const Violations end = sut.finish();
    if (!end.empty())
      RC_FAIL("after freeing everything and emptying the cache:" + join_violations(end));
    ++coverage.programs;
  });
  std::cout << "[ property ] device allocator core (" << name << "): " << coverage.programs
            << " programs, " << coverage.commands << " commands, " << coverage.allocations
            << " allocations, " << coverage.ooms << " OOMs (each justified), "
            << coverage.pending_frees << " frees pending other streams, "
            << coverage.reused_after_wait << " reuses after the wait, " << coverage.empty_caches
            << " empty_cache, " << coverage.oversize_moments << " checks with oversize blocks live"
            << std::endl;
  EXPECT_TRUE(ok);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

TEST(AllocatorCoreProperty, DefaultSettings) { run_property("default settings", false, false); }
TEST(AllocatorCoreProperty, SplitLimitAndRoundup) {
  run_property("max_split_size_mb and roundup_power2_divisions", false, true);
}
TEST(AllocatorCoreProperty, ExpandableSegments) {
  run_property("expandable segments", true, false);
}

}  // namespace
}  // namespace accel::test::alloc_model
