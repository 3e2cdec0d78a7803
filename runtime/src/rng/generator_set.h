#pragma once
// GeneratorSet: the default random generator state of every device of one runtime.
//
// Each device has a Philox-style state: the 64-bit seed it was last seeded with and a
// 64-bit offset into its counter stream (nothing in this runtime consumes random numbers
// yet, so only set_rng_state moves the offset). The set is created for device_count()
// devices when the runtime initialises, every device at random::kDefaultSeed.
// Ownership: a RuntimeState owns one. Thread safety: every method locks an internal mutex.

#include <array>
#include <cstdint>
#include <mutex>
#include <vector>

#include "accel/random.h"

namespace accel::detail {

struct GeneratorState {
  std::uint64_t seed = random::kDefaultSeed;
  std::uint64_t offset = 0;
};

class GeneratorSet {
 public:
  // Drops every state and creates `device_count` fresh ones.
  void reset(int device_count);
  int size() const;

  // Seeds `device` (offset back to 0). Requires 0 <= device < size(), as all below.
  void set_seed(int device, std::uint64_t seed);
  GeneratorState get(int device) const;
  void set(int device, GeneratorState state);

  // The serialised state: seed then offset, little-endian.
  static std::array<std::uint8_t, random::kStateBytes> encode(GeneratorState state);
  static GeneratorState decode(const std::array<std::uint8_t, random::kStateBytes>& bytes);

 private:
  mutable std::mutex mutex_;
  std::vector<GeneratorState> states_;
};

}  // namespace accel::detail
