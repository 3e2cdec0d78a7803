#pragma once
// Per-device random number generator state (torch.accelerator.random).
//
// Each device has a default generator: a Philox-style state of a 64-bit seed and a
// 64-bit offset. Its serialised state (get_rng_state) is 16 bytes: the seed then the
// offset, each little-endian. Setters called before initialisation are deferred through
// lazy_call() and do not initialise; getters initialise.
// Thread safety: all functions are safe from any thread.

#include <cstdint>
#include <span>
#include <vector>

#include "accel/device.h"

namespace accel::random {

inline constexpr std::uint64_t kDefaultSeed = 67280421310721ULL;
inline constexpr std::size_t kStateBytes = 16;

// Seeds the current device's generator (the device current when the call runs).
void manual_seed(std::uint64_t seed);
// Seeds every device's generator with `seed`.
void manual_seed_all(std::uint64_t seed);
// Seeds the current device's generator with a non-deterministic seed.
void seed();
// Seeds device 0 non-deterministically and every other device with the same seed.
void seed_all();

// The seed the current device's generator was last seeded with. Initialises.
std::uint64_t initial_seed();

// The 16-byte state of `device`'s generator (the current device when none). Initialises.
std::vector<std::uint8_t> get_rng_state(DeviceArg device = {});
// Sets `device`'s generator state (the device current when the call runs, when none).
// The bytes are copied before deferral. Throws kValue unless state.size() == 16.
void set_rng_state(std::span<const std::uint8_t> state, DeviceArg device = {});

// get_rng_state(i) for every device, in index order. Initialises.
std::vector<std::vector<std::uint8_t>> get_rng_state_all();
// set_rng_state(states[i], i) for every i, in order.
void set_rng_state_all(const std::vector<std::vector<std::uint8_t>>& states);

}  // namespace accel::random
