// main() of the conformance suite: lists the selected profiles and installs the
// live-object listener (tests/support/live_object_listener.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "backend_profile.h"
#include "live_object_listener.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Before any profile's environment is applied: each test's child starts from the user's
  // own values (backend_profile.h).
  accel::test::snapshot_user_environment();
  // The listener asks the simulated hardware for its live objects in this process, which
  // makes the engine read MOCKDEV_MACHINE now: give it the profiles' environment first
  // (values already set win; each test's child applies its own profile's again). The first
  // mock profile's machine is the one this process's engine reads.
  for (const accel::test::BackendProfile* profile : accel::test::selected_profiles()) {
    if (profile->on_mock) {
      accel::test::apply_profile_environment(*profile);
      break;
    }
  }
  bool any_on_mock = false;
  std::printf("[ PROFILES ] conformance profiles in this run:");
  for (const accel::test::BackendProfile* profile : accel::test::selected_profiles()) {
    std::printf(" %s%s", profile->name.c_str(), profile->on_mock ? "" : " (real driver)");
    any_on_mock = any_on_mock || profile->on_mock;
  }
  std::printf("\n[ PROFILES ] ACCEL_CONFORMANCE_PROFILE=<name>[,<name>] selects others; known:");
  for (const accel::test::BackendProfile& profile : accel::test::all_profiles()) {
    std::printf(" %s", profile.name.c_str());
  }
  std::printf("\n");
  ::testing::UnitTest::GetInstance()->listeners().Append(new accel::test::LiveObjectListener(
      accel::test::promise_no_allocations(), /*enabled=*/any_on_mock));
  return RUN_ALL_TESTS();
}
