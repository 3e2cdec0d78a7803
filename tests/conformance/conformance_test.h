#pragma once
// ConformanceTest: the fixture of the conformance suite. Each test is written once against
// a BackendProfile (backend_profile.h) and instantiated for every selected profile, with
// the profile's name as the last part of the test name:
//   Conformance/Device.CountMatchesPhysicalDevices/cuda_mock
//
// Note [Every conformance test runs in a fresh child]
// The runtime's lazy-init and fork state is per process, and many promises are about a
// process that never initialised ("device_count() does not initialise"). ctest runs each
// test in its own process, but the real-hardware profile is run by hand as one process,
// and profiles need different environments. So run_isolated() forks a child of the test
// process, which never touches the runtime itself; the child applies the profile's
// environment, runs the body, checks the live-object promise (live_object_listener.h) and
// exits with a named code. Tests that cannot run (too few devices, a mock-only check on a
// real driver) skip loudly, with the reason, in the parent.

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend_profile.h"

namespace accel::test {

class ConformanceTest : public ::testing::TestWithParam<const BackendProfile*> {
 protected:
  const BackendProfile& profile() const { return *GetParam(); }

  // Runs `body` in a fresh child with the profile's environment plus `environment`
  // (nullopt unsets). Failures in the child fail this test; skip_in_child() skips it.
  void run_isolated(const std::function<void()>& body,
                    const std::vector<std::pair<std::string, std::optional<std::string>>>&
                        environment = {},
                    unsigned timeout_s = 30);
};

// Note [Every conformance test runs in a fresh child], for fixtures with other parameters.
void run_isolated(const BackendProfile& profile, const std::function<void()>& body,
                  const std::vector<std::pair<std::string, std::optional<std::string>>>&
                      environment = {},
                  unsigned timeout_s = 30);

// Inside a run_isolated body: ends the child and makes the test skip with `reason`.
[[noreturn]] void skip_in_child(const std::string& reason);

// Inside a run_isolated body: ends the child and fails the test with `reason`.
[[noreturn]] void fail_in_child(const std::string& reason);

// Inside a run_isolated body: the device count NVML reports (visibility variable ignored).
// Fails the test when it cannot be asked (a selected profile whose driver is missing is a
// misconfiguration, never a pass); skips when there are fewer than `minimum` devices.
int require_physical_devices(const BackendProfile& profile, int minimum);

// "cuda_mock": the profile's name as the gtest parameter name.
std::string profile_param_name(const ::testing::TestParamInfo<const BackendProfile*>& info);

// Instantiates a ConformanceTest suite for every selected profile.
#define ACCEL_INSTANTIATE_CONFORMANCE(suite)                                    \
  INSTANTIATE_TEST_SUITE_P(Conformance, suite,                                  \
                           ::testing::ValuesIn(::accel::test::selected_profiles()), \
                           ::accel::test::profile_param_name)

// Skips (in the parent, before forking) a test that needs the simulated hardware.
#define ACCEL_REQUIRE_MOCK(why)                                                           \
  do {                                                                                    \
    if (!profile().on_mock) {                                                             \
      GTEST_SKIP() << "SKIPPED on profile " << profile().name                             \
                   << ": needs the simulated hardware's control API (" << (why) << ")";   \
    }                                                                                     \
  } while (0)

// Skips (in the parent) a test whose subject the profile's backend does not have, with the
// profile field's reason (Note [Backend branches] in backend_profile.h).
#define ACCEL_REQUIRE_BRANCH(field, why)                                                  \
  do {                                                                                    \
    if (!profile().field) {                                                               \
      GTEST_SKIP() << "SKIPPED on profile " << profile().name << ": " #field " = false: " \
                   << (why);                                                              \
    }                                                                                     \
  } while (0)

// The test captures graphs.
#define ACCEL_REQUIRE_GRAPHS()                                                           \
  ACCEL_REQUIRE_BRANCH(has_graphs, "the backend has no stream capture (Level Zero: no "  \
                                   "capture API; Graph::capture_begin is refused, see "  \
                                   "Graphs.CaptureIsRefusedWhereTheBackendHasNoGraphs)")

}  // namespace accel::test
