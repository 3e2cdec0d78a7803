#pragma once
// The device allocator's size policy (PyTorch's CUDACachingAllocator.cpp): how a
// request is rounded, which pool serves it, how large a new segment is, whether a block is
// split, and PyTorch's format_size for messages. Pure functions of the request and the
// settings; no state.

#include <cstddef>
#include <string>

#include "allocator/allocator_config.h"

namespace accel::detail::alloc {

inline constexpr std::size_t kMinBlockSize = 512;
inline constexpr std::size_t kSmallSize = 1024 * 1024;           // <= this: small pool
inline constexpr std::size_t kSmallBuffer = 2 * 1024 * 1024;     // small-pool segment
inline constexpr std::size_t kLargeBuffer = 20 * 1024 * 1024;    // segment for 1-10 MiB
inline constexpr std::size_t kMinLargeAlloc = 10 * 1024 * 1024;  // own segment from here
inline constexpr std::size_t kRoundLarge = 2 * 1024 * 1024;      // their rounding
inline constexpr std::size_t kOneExbibyte = std::size_t{1} << 60;

// round_size: < 512 -> 512; with d > 1 divisions configured for the size and size > 512 * d,
// the next of d equal steps between the surrounding powers of two (a power of two stays);
// else the next multiple of 512. (An example sometimes quoted, "1200 with 4 divisions ->
// 1280", does not meet the size > 512 * d guard; the guard wins: 1536.) Requires bytes <
// 1 EiB.
std::size_t round_size(std::size_t bytes, const AllocatorConfig& config) noexcept;

// get_pool: rounded size <= 1 MiB goes to the small pool.
inline bool is_small(std::size_t rounded) noexcept { return rounded <= kSmallSize; }

// get_allocation_size: the segment to ask the driver for.
std::size_t allocation_size(std::size_t rounded) noexcept;

// should_split: split a free block of `block_size` to serve `size`?
bool should_split(std::size_t block_size, std::size_t size, bool small_pool, bool expandable,
                  std::size_t max_split_size) noexcept;

// PyTorch's format_size: "<n> bytes" up to 1024, else "<x.xx> KiB/MiB/GiB".
std::string format_size(std::size_t bytes);

}  // namespace accel::detail::alloc
