// Conformance: per-device RNG state, once per backend profile.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using Random = ConformanceTest;

std::vector<std::uint8_t> state_bytes(std::uint64_t seed, std::uint64_t offset) {
  std::vector<std::uint8_t> bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(seed >> (8 * i)));
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(offset >> (8 * i)));
  return bytes;
}

TEST_P(Random, EveryDeviceStartsWithTheDefaultSeed) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    EXPECT_EQ(random::initial_seed(), random::kDefaultSeed);
    const std::vector<std::vector<std::uint8_t>> all = random::get_rng_state_all();
    ASSERT_EQ(static_cast<int>(all.size()), count);
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(all[i], state_bytes(random::kDefaultSeed, 0)) << "device " << i;
      EXPECT_EQ(random::get_rng_state(i), all[i]);
    }
  });
}

TEST_P(Random, SeedingBeforeInitIsDeferredAndDoesNotInitialise) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    random::manual_seed_all(7);
    random::manual_seed(42);  // the current device, 0, when it runs
    random::set_rng_state(state_bytes(5, 6), count - 1);
    EXPECT_FALSE(is_initialized()) << "a deferred setter initialised";
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
    }
    EXPECT_EQ(random::initial_seed(), 42u);
    EXPECT_EQ(random::get_rng_state(0), state_bytes(42, 0));
    // The seed calls replay after every plain deferred call, in the order they were last
    // requested (PyTorch's _lazy_seed_tracker), so manual_seed_all overwrites the state set
    // for the last device.
    for (int i = 1; i < count; ++i) {
      EXPECT_EQ(random::get_rng_state(i), state_bytes(7, 0)) << "device " << i;
    }
  });
}

TEST_P(Random, StateRoundTripsAndFollowsTheCurrentDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    init();
    set_device_index(1);
    random::manual_seed(99);
    EXPECT_EQ(random::get_rng_state(), state_bytes(99, 0));
    EXPECT_EQ(random::get_rng_state(0), state_bytes(random::kDefaultSeed, 0));
    random::set_rng_state(state_bytes(1, 2));
    EXPECT_EQ(random::get_rng_state(1), state_bytes(1, 2));
    std::vector<std::vector<std::uint8_t>> all = random::get_rng_state_all();
    all[0] = state_bytes(3, 4);
    random::set_rng_state_all(all);
    EXPECT_EQ(random::get_rng_state(0), state_bytes(3, 4));
  });
}

TEST_P(Random, BadStateSizeAndBadDeviceRaise) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    const std::vector<std::uint8_t> short_state(15, 0);
    EXPECT_TRUE(is_error(catch_error([&] { random::set_rng_state(short_state); }),
                         ErrorKind::kValue, "set_rng_state: expected 16 bytes of state, got 15"));
    EXPECT_TRUE(is_error(catch_error([count] { random::get_rng_state(count); }),
                         ErrorKind::kIndex,
                         "get_rng_state: device index " + std::to_string(count) +
                             " is out of range [0, " + std::to_string(count) + ")"));
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Random);

}  // namespace
}  // namespace accel::test
