#pragma once
// Pinned (page-locked) host memory, vendor-neutral: the ranges a driver allocated for the
// host or registered, and the bytes they hold per process. Copies consult it to decide when
// host bytes move (the CUDA Driver API's "API synchronization behavior"): a pinned endpoint is read
// or written when the operation executes, a pageable one at the call. Requires the engine lock;
// starts afresh with each installed machine.

#include <cstdint>
#include <optional>

#include "core/engine_lock.h"

namespace mockdev::core {

struct PinnedRange {
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
  bool allocated = false;  // true: the driver allocated it (AllocHost); false: registered
};

// Records [base, base + bytes) as pinned. False when it overlaps a pinned range already.
bool add_pinned(std::uint64_t base, std::uint64_t bytes, bool allocated)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The pinned range starting exactly at `base`, or nullopt.
std::optional<PinnedRange> pinned_at(std::uint64_t base) MOCKDEV_REQUIRES(g_engine_mutex);
// Removes the pinned range starting at `base`; false if none.
bool remove_pinned(std::uint64_t base) MOCKDEV_REQUIRES(g_engine_mutex);
// Whether [address, address + bytes) lies wholly inside one pinned range.
bool is_pinned(std::uint64_t address, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes pinned now (allocated and registered together), for the control API.
std::uint64_t pinned_bytes() MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes the driver allocated as pinned host memory for this process (AllocHost, HostAlloc;
// registered ranges are the process's own memory and do not count).
std::uint64_t allocated_pinned_bytes() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
