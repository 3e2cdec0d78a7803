// The Sysman branch of the fork-safe count (Note [Fork-safe Level Zero count], step 1) end
// to end: ACCEL_LEVEL_ZERO_LOADER names the test stand-in for a loader >= 1.9
// (tests/unit/mockdev/level_zero/zes_loader_shim), which exports zesInit and friends over the
// mock driver; the core entry points still come from Debian's loader behind it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "backends/level_zero/ze_backend.h"
#include "mockdev/control.h"
#include "mockdev/level_zero.h"
#include "scoped_env.h"

namespace accel::detail::level_zero {
namespace {

using accel::test::ScopedEnv;

TEST(ZeSysmanCountTest, SysmanCountsWithoutZeInitAndAppliesPytorchRules) {
  mockdev::control::reset(mockdev::load_machine("2xmax1550"));
  auto backend = create_level_zero_backend();
  struct Case {
    const char* hierarchy;
    const char* mask;
    int expected;
  };
  for (const Case& c : {Case{nullptr, nullptr, 4}, Case{"COMPOSITE", nullptr, 2},
                        Case{nullptr, "0,3", 2}, Case{nullptr, "3,3", 1},
                        Case{"COMPOSITE", "1", 1}, Case{nullptr, "9", 0}}) {
    ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY",
                        c.hierarchy ? std::optional<std::string>(c.hierarchy) : std::nullopt);
    ScopedEnv mask("ZE_AFFINITY_MASK",
                   c.mask ? std::optional<std::string>(c.mask) : std::nullopt);
    EXPECT_EQ(backend->fork_safe_device_count(), c.expected)
        << (c.hierarchy ? c.hierarchy : "<unset>") << " mask=" << (c.mask ? c.mask : "<unset>");
    EXPECT_EQ(backend->report().count_source, "sysman");
  }
  EXPECT_EQ(mockdev::control::call_count("zeInit"), 0u);
  EXPECT_EQ(mockdev::control::level_zero::status().sysman_route, "zesInit");
}

TEST(ZeSysmanCountTest, MaskSysmanCannotReadFallsBackToTheProbeChild) {
  mockdev::control::reset(mockdev::load_machine("2xmax1550"));
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
  ScopedEnv mask("ZE_AFFINITY_MASK", "1.0");  // card 1, tile 0: one device
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), 1);
  EXPECT_EQ(backend->report().count_source, "probe");
  EXPECT_EQ(mockdev::control::call_count("zeInit"), 0u);
}

TEST(ZeSysmanCountTest, InitialisingWithZesInitNeverSetsZesEnableSysman) {
  mockdev::control::reset(mockdev::load_machine("2xmax1550"));
  ScopedEnv sysman("ZES_ENABLE_SYSMAN", std::nullopt);
  auto backend = create_level_zero_backend();
  EXPECT_EQ(backend->fork_safe_device_count(), 4);
  ASSERT_TRUE(backend->initialize().ok()) << backend->initialize().message();
  EXPECT_EQ(backend->device_count(), 4);
  EXPECT_EQ(std::getenv("ZES_ENABLE_SYSMAN"), nullptr);
}

}  // namespace
}  // namespace accel::detail::level_zero
