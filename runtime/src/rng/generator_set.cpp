// Per-device generator states and their byte encoding.
#include "rng/generator_set.h"

namespace accel::detail {

void GeneratorSet::reset(int device_count) {
  std::lock_guard lock(mutex_);
  states_.assign(device_count > 0 ? static_cast<std::size_t>(device_count) : 0, GeneratorState{});
}

int GeneratorSet::size() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(states_.size());
}

void GeneratorSet::set_seed(int device, std::uint64_t seed) {
  std::lock_guard lock(mutex_);
  states_.at(static_cast<std::size_t>(device)) = GeneratorState{seed, 0};
}

GeneratorState GeneratorSet::get(int device) const {
  std::lock_guard lock(mutex_);
  return states_.at(static_cast<std::size_t>(device));
}

void GeneratorSet::set(int device, GeneratorState state) {
  std::lock_guard lock(mutex_);
  states_.at(static_cast<std::size_t>(device)) = state;
}

std::array<std::uint8_t, random::kStateBytes> GeneratorSet::encode(GeneratorState state) {
  std::array<std::uint8_t, random::kStateBytes> bytes{};
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<std::uint8_t>(state.seed >> (8 * i));
    bytes[8 + i] = static_cast<std::uint8_t>(state.offset >> (8 * i));
  }
  return bytes;
}

GeneratorState GeneratorSet::decode(const std::array<std::uint8_t, random::kStateBytes>& bytes) {
  GeneratorState state{0, 0};
  for (int i = 0; i < 8; ++i) {
    state.seed |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    state.offset |= static_cast<std::uint64_t>(bytes[8 + i]) << (8 * i);
  }
  return state;
}

}  // namespace accel::detail
