// Per-device RNG state (torch.cuda.random's functions): deferred setters, the 16-byte seed+offset
// state, round trips, and which device each call reaches.

#include "accel/random.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

// The serialised state: seed then offset, each 8 bytes little-endian.
std::vector<std::uint8_t> state_bytes(std::uint64_t seed, std::uint64_t offset) {
  std::vector<std::uint8_t> bytes;
  for (std::uint64_t value : {seed, offset}) {
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
  return bytes;
}

std::uint64_t seed_of(const std::vector<std::uint8_t>& state) {
  std::uint64_t seed = 0;
  for (int i = 7; i >= 0; --i) seed = (seed << 8) | state.at(i);
  return seed;
}

using RandomTest = BackendTest;

TEST_F(RandomTest, DefaultStateIsTheDefaultSeedAtOffsetZero) {
  EXPECT_EQ(random::initial_seed(), random::kDefaultSeed);
  EXPECT_EQ(random::get_rng_state(), state_bytes(random::kDefaultSeed, 0));
  EXPECT_EQ(random::get_rng_state(3).size(), random::kStateBytes);
}

TEST_F(RandomTest, ManualSeedBeforeInitIsDeferred) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  random::manual_seed(42);
  random::manual_seed_all(7);
  random::seed();
  random::seed_all();
  random::set_rng_state(state_bytes(1, 2), 1);
  EXPECT_FALSE(is_initialized());
  ::testing::Mock::VerifyAndClearExpectations(&backend());
}

TEST_F(RandomTest, ManualSeedSetsTheSeedAndResetsTheOffset) {
  random::manual_seed(42);
  EXPECT_EQ(random::initial_seed(), 42u);
  EXPECT_EQ(random::get_rng_state(), state_bytes(42, 0));
  random::manual_seed(0x0123456789abcdefULL);
  EXPECT_EQ(random::get_rng_state(),
            (std::vector<std::uint8_t>{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0, 0,
                                       0, 0, 0, 0}));
}

TEST_F(RandomTest, ManualSeedReachesTheCurrentDeviceOnly) {
  set_device_index(2);
  random::manual_seed(9);
  EXPECT_EQ(random::get_rng_state(2), state_bytes(9, 0));
  EXPECT_EQ(random::get_rng_state(0), state_bytes(random::kDefaultSeed, 0));
}

TEST_F(RandomTest, DeferredManualSeedReachesTheDeviceCurrentWhenItRuns) {
  random::manual_seed(11);  // queued; runs at init on the then-current device (0)
  set_device_index(1);      // initialises: the queued seed runs first, on device 0
  EXPECT_EQ(random::get_rng_state(0), state_bytes(11, 0));
  EXPECT_EQ(random::get_rng_state(1), state_bytes(random::kDefaultSeed, 0));
}

TEST_F(RandomTest, SetAndGetRoundTrip) {
  const auto state = state_bytes(0xfeedfacecafebeefULL, 0x1122334455667788ULL);
  random::set_rng_state(state, 2);
  EXPECT_EQ(random::get_rng_state(2), state);
  EXPECT_EQ(random::get_rng_state("cuda:2"), state);
  EXPECT_EQ(random::get_rng_state(0), state_bytes(random::kDefaultSeed, 0));
  set_device_index(3);
  random::set_rng_state(state_bytes(5, 6));
  EXPECT_EQ(random::get_rng_state(), state_bytes(5, 6));
  EXPECT_EQ(random::initial_seed(), 5u);
}

TEST_F(RandomTest, DeferredSetRngStateCopiesTheBytes) {
  auto state = state_bytes(77, 3);
  random::set_rng_state(state, 1);
  state.assign(state.size(), 0xff);  // the caller reuses its buffer before init
  EXPECT_FALSE(is_initialized());
  EXPECT_EQ(random::get_rng_state(1), state_bytes(77, 3));
}

TEST_F(RandomTest, SetRngStateRejectsAWrongSize) {
  const std::vector<std::uint8_t> short_state{1, 2, 3};
  const CaughtError caught = catch_error([&] { random::set_rng_state(short_state, 0); });
  EXPECT_EQ(caught.kind, ErrorKind::kValue) << caught.describe();
  EXPECT_NE(caught.message.find('3'), std::string::npos)
      << "the message should name the wrong size: " << caught.describe();
  EXPECT_TRUE(
      catch_error([] { random::set_rng_state(std::vector<std::uint8_t>(17, 0)); }).thrown());
  EXPECT_TRUE(catch_error([] { random::set_rng_state(std::vector<std::uint8_t>()); }).thrown());
  EXPECT_FALSE(is_initialized()) << "a rejected argument must not initialise";
}

TEST_F(RandomTest, ManualSeedAllReachesEveryDevice) {
  random::manual_seed_all(5);
  for (int device = 0; device < 4; ++device) {
    EXPECT_EQ(random::get_rng_state(device), state_bytes(5, 0)) << "device " << device;
  }
}

TEST_F(RandomTest, SeedAllGivesEveryDeviceTheSameSeed) {
  random::seed_all();
  const auto states = random::get_rng_state_all();
  ASSERT_EQ(states.size(), 4u);
  for (const auto& state : states) {
    EXPECT_EQ(state, states[0]);
    EXPECT_EQ(state.size(), random::kStateBytes);
  }
}

TEST_F(RandomTest, SeedChangesOnlyTheCurrentDevice) {
  random::manual_seed_all(1);
  set_device_index(1);
  random::seed();
  EXPECT_EQ(random::get_rng_state(0), state_bytes(1, 0));
  EXPECT_EQ(random::get_rng_state(2), state_bytes(1, 0));
  // A fresh non-deterministic seed equal to 1 would be a 2^-64 coincidence.
  EXPECT_NE(seed_of(random::get_rng_state(1)), 1u);
}

TEST_F(RandomTest, GetRngStateAllHasOneStatePerDevice) {
  const auto states = random::get_rng_state_all();
  ASSERT_EQ(states.size(), 4u);
  for (const auto& state : states) EXPECT_EQ(state, state_bytes(random::kDefaultSeed, 0));
}

TEST_F(RandomTest, SetRngStateAllRoundTrips) {
  std::vector<std::vector<std::uint8_t>> states;
  for (std::uint64_t i = 0; i < 4; ++i) states.push_back(state_bytes(100 + i, i));
  random::set_rng_state_all(states);
  EXPECT_EQ(random::get_rng_state_all(), states);
}

TEST_F(RandomTest, DeferredSeedsFollowTheSeedTracker) {
  random::manual_seed_all(1);
  random::manual_seed(2);  // last: the current device ends with 2, the others with 1
  init();
  EXPECT_EQ(seed_of(random::get_rng_state(0)), 2u);
  for (int device = 1; device < 4; ++device) EXPECT_EQ(seed_of(random::get_rng_state(device)), 1u);
}

TEST_F(RandomTest, DeferredSeedAllAfterSeedWins) {
  random::manual_seed(2);
  random::manual_seed_all(1);  // last: every device ends with 1
  init();
  for (int device = 0; device < 4; ++device) EXPECT_EQ(seed_of(random::get_rng_state(device)), 1u);
}

TEST_F(RandomTest, DeferredPlainSettersRunBeforeTrackedSeeds) {
  random::manual_seed(3);
  random::set_rng_state(state_bytes(50, 4), 0);  // plain: runs before the tracked seed
  init();
  EXPECT_EQ(random::get_rng_state(0), state_bytes(3, 0));
}

TEST_F(RandomTest, GettersInitialise) {
  EXPECT_FALSE(is_initialized());
  random::get_rng_state();
  EXPECT_TRUE(is_initialized());
}

}  // namespace
}  // namespace accel::test
