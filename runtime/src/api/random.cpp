// torch.accelerator.random over the installed runtime's GeneratorSet.
#include "accel/random.h"

#include <algorithm>
#include <array>
#include <random>
#include <string>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "core/device_resolution.h"
#include "core/runtime.h"

namespace accel::random {

using detail::GeneratorSet;
using detail::GeneratorState;
using detail::RuntimeState;

namespace {

std::uint64_t nondeterministic_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ static_cast<std::uint64_t>(device());
}

// The generators of the initialised runtime, after checking `device` is one of them.
GeneratorSet& generators_for(int device, std::string_view operation) {
  RuntimeState& state = detail::current_state();
  detail::ensure_initialized(state);
  GeneratorSet& generators = state.generators();
  if (device < 0 || device >= generators.size()) {
    ErrorDetail detail;
    detail.device = device;
    throw Error(ErrorKind::kIndex,
                std::string(operation) + ": device index " + std::to_string(device) +
                    " is out of range [0, " + std::to_string(generators.size()) + ")",
                detail);
  }
  return generators;
}

std::array<std::uint8_t, kStateBytes> copy_state(std::span<const std::uint8_t> state,
                                                 std::string_view operation) {
  if (state.size() != kStateBytes) {
    throw Error(ErrorKind::kValue, std::string(operation) + ": expected " +
                                       std::to_string(kStateBytes) + " bytes of state, got " +
                                       std::to_string(state.size()));
  }
  std::array<std::uint8_t, kStateBytes> bytes{};
  std::copy(state.begin(), state.end(), bytes.begin());
  return bytes;
}

void defer_set_state(std::array<std::uint8_t, kStateBytes> bytes, std::optional<int> device) {
  lazy_call([bytes, device] {
    int index = device ? *device : current_device_index();
    generators_for(index, "set_rng_state").set(index, GeneratorSet::decode(bytes));
  });
}

}  // namespace

void manual_seed(std::uint64_t seed) {
  lazy_call(
      [seed] {
        int index = current_device_index();
        generators_for(index, "manual_seed").set_seed(index, seed);
      },
      LazyCallKind::kSeed);
}

void manual_seed_all(std::uint64_t seed) {
  lazy_call(
      [seed] {
        GeneratorSet& generators = generators_for(0, "manual_seed_all");
        for (int i = 0; i < generators.size(); ++i) generators.set_seed(i, seed);
      },
      LazyCallKind::kSeedAll);
}

void seed() {
  lazy_call([] {
    int index = current_device_index();
    generators_for(index, "seed").set_seed(index, nondeterministic_seed());
  });
}

void seed_all() {
  lazy_call([] {
    GeneratorSet& generators = generators_for(0, "seed_all");
    generators.set_seed(0, nondeterministic_seed());
    std::uint64_t value = generators.get(0).seed;
    for (int i = 1; i < generators.size(); ++i) generators.set_seed(i, value);
  });
}

std::uint64_t initial_seed() {
  int index = current_device_index();
  return generators_for(index, "initial_seed").get(index).seed;
}

std::vector<std::uint8_t> get_rng_state(DeviceArg device) {
  int index = detail::resolve_device_index(device, /*optional=*/true);
  auto bytes = GeneratorSet::encode(generators_for(index, "get_rng_state").get(index));
  return std::vector<std::uint8_t>(bytes.begin(), bytes.end());
}

void set_rng_state(std::span<const std::uint8_t> state, DeviceArg device) {
  std::array<std::uint8_t, kStateBytes> bytes = copy_state(state, "set_rng_state");
  // An explicit device is checked now (type errors surface at the call); a missing index
  // means "the device current when the call runs", as PyTorch resolves it in the callback.
  defer_set_state(bytes, detail::resolve_explicit_device_index(device));
}

std::vector<std::vector<std::uint8_t>> get_rng_state_all() {
  std::vector<std::vector<std::uint8_t>> states;
  RuntimeState& state = detail::current_state();
  detail::ensure_initialized(state);
  int count = state.generators().size();
  for (int i = 0; i < count; ++i) states.push_back(get_rng_state(i));
  return states;
}

void set_rng_state_all(const std::vector<std::vector<std::uint8_t>>& states) {
  // Validate every state first, so a bad one leaves all generators untouched.
  std::vector<std::array<std::uint8_t, kStateBytes>> copies;
  for (const std::vector<std::uint8_t>& state : states) {
    copies.push_back(copy_state(state, "set_rng_state_all"));
  }
  for (std::size_t i = 0; i < copies.size(); ++i) defer_set_state(copies[i], static_cast<int>(i));
}

}  // namespace accel::random
