#include "allocator/size_policy.h"

#include <bit>
#include <cstdio>

namespace accel::detail::alloc {

namespace {
std::size_t round_up(std::size_t value, std::size_t multiple) noexcept {
  return (value + multiple - 1) / multiple * multiple;
}

// The next of `divisions` equal steps between the powers of two around `bytes`.
std::size_t next_division(std::size_t bytes, std::size_t divisions) noexcept {
  if (std::has_single_bit(bytes)) return bytes;
  std::size_t floor = std::bit_floor(bytes);
  std::size_t step = floor / divisions;
  if (step == 0) return floor << 1;
  return round_up(bytes, step);
}
}  // namespace

std::size_t round_size(std::size_t bytes, const AllocatorConfig& config) noexcept {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  std::size_t divisions = config.divisions_for(bytes);
  if (divisions > 1 && bytes > kMinBlockSize * divisions) return next_division(bytes, divisions);
  return round_up(bytes, kMinBlockSize);
}

std::size_t allocation_size(std::size_t rounded) noexcept {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return round_up(rounded, kRoundLarge);
}

bool should_split(std::size_t block_size, std::size_t size, bool small_pool, bool expandable,
                  std::size_t max_split_size) noexcept {
  std::size_t remaining = block_size - size;
  if (small_pool || expandable) return remaining >= kMinBlockSize;
  return size < max_split_size && remaining > kSmallSize;
}

std::string format_size(std::size_t bytes) {
  char text[64];
  if (bytes <= 1024) {
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  } else if (bytes <= 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  } else if (bytes <= 1024ULL * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB",
                  static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

}  // namespace accel::detail::alloc
