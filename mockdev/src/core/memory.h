#pragma once
// Device memory of the simulated machine, vendor-neutral: capacity, exact byte accounting,
// and allocations at fake device addresses. Each allocation records the API that made it,
// so one API releasing its context frees only its own memory. Every function requires the
// engine lock (Note [Engine lock] in core/engine_lock.h); the state resets with the machine.
//
// Note [Device addresses]
// Device d allocates in [(d+1) << 44, (d+2) << 44), 512-byte aligned, with a bump pointer:
// ranges are disjoint (an address names its device) and an address is never reused, so a
// stale pointer is always recognised as invalid. Accounting is in exact bytes (no rounding)
// so tests can compare byte counts.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/engine_lock.h"
#include "mockdev/machine.h"

namespace mockdev::core {

inline constexpr int kAddressRangeShift = 44;
inline constexpr std::uint64_t kAllocationAlignment = 512;

struct Allocation {
  Api owner = Api::kCuda;
  int device = 0;  // physical
  std::uint64_t bytes = 0;
};

// `bytes` (> 0) on physical `device` for `owner`: its address, or nullopt when the device's
// capacity (or its address range) is spent.
std::optional<std::uint64_t> allocate(Api owner, int device, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The live allocation starting at `address`, or nullopt.
std::optional<Allocation> find_allocation(std::uint64_t address) MOCKDEV_REQUIRES(g_engine_mutex);
// Frees the live allocation starting at `address` (see find_allocation); false if none.
bool free_allocation(std::uint64_t address) MOCKDEV_REQUIRES(g_engine_mutex);
// Frees every allocation `owner` made on physical `device`.
void free_device_allocations(Api owner, int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes in use on physical `device` (0 for an unknown device).
std::uint64_t used_bytes(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Every live allocation by address, for leak reports.
const std::map<std::uint64_t, Allocation>& allocations() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
