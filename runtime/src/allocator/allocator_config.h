#pragma once
// The caching allocators' settings: ACCEL_ALLOC_CONF in PyTorch's syntax (its
// CUDAAllocatorConfig; PYTORCH_ALLOC_CONF is read when ACCEL_ALLOC_CONF is unset or
// empty, so a user's existing setting carries over).
//
//   max_split_size_mb:128,roundup_power2_divisions:[256:1,512:2,>:8],
//   garbage_collection_threshold:0.8,expandable_segments:True
//
// Keys (docs/MEMORY.md): max_split_size_mb (> 20, MiB; default unlimited),
// max_non_split_rounding_mb, roundup_power2_divisions (an int power of two, or
// [size_mb:divisions,...,>:divisions]), garbage_collection_threshold (0 < t < 1),
// expandable_segments (True/False), release_lock_on_cudamalloc and
// pinned_use_cuda_host_register / pinned_num_register_threads (accepted, recorded),
// pinned_use_background_threads (True/False), backend (native only: anything else is an
// error, since the runtime has one allocator). Unknown keys and malformed values are
// errors naming the token; nothing is silently ignored. An unknown key's message names the
// closest known keys by edit distance (accel_common/edit_distance.h), or lists them all when
// none is close. Values only; parsing is pure.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "spi/status.h"

namespace accel::detail::alloc {

inline constexpr std::size_t kRoundupPower2Intervals = 64;  // one per power of two

struct AllocatorConfig {
  std::size_t max_split_size = static_cast<std::size_t>(-1);  // SIZE_MAX = unlimited
  std::size_t max_non_split_rounding = 20 * 1024 * 1024;      // kLargeBuffer
  // Divisions per power-of-two interval: index k covers sizes in (2^(k-1), 2^k]; 0 or 1 =
  // no power-of-two rounding for that interval.
  std::array<std::size_t, kRoundupPower2Intervals> roundup_power2_divisions{};
  double garbage_collection_threshold = 0.0;  // 0 = off
  bool expandable_segments = false;
  bool release_lock_on_device_malloc = false;
  bool pinned_use_host_register = false;
  std::size_t pinned_num_register_threads = 1;
  bool pinned_use_background_threads = false;

  // Divisions that apply to a request of `bytes` (0 or 1 = none).
  std::size_t divisions_for(std::size_t bytes) const noexcept;
};

// Parses `text` over `base` (keys not named keep base's values). kConfig on error:
// "<source>: <what is wrong> in '<token>'" where source names the variable
// ("ACCEL_ALLOC_CONF") or "set_allocator_settings".
Result<AllocatorConfig> parse_allocator_config(std::string_view text, std::string_view source,
                                               const AllocatorConfig& base = {});

// ACCEL_ALLOC_CONF, else PYTORCH_ALLOC_CONF, else defaults; errors name the variable read.
Result<AllocatorConfig> allocator_config_from_environment();

// The settings in force, every key, in the syntax parse_allocator_config reads.
std::string to_string(const AllocatorConfig& config);

}  // namespace accel::detail::alloc
