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
//
// Note [Lazy backing]
// Device memory holds real bytes, backed sparsely: 64 KiB pages created on the first write
// that touches them, so an 80 GiB device costs nothing until it is used and untouched bytes
// read as zero. Freeing an allocation drops the pages that lie wholly inside its range; a
// page it shares with a neighbour stays, which is harmless because addresses are never
// reused (the freed part is never read again, and the neighbour's part was never written
// by the freed allocation). Writing zeros into an absent page creates nothing.

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
// The live allocation that contains [address, address + bytes) wholly (bytes >= 1), with
// its base address in `*base`; nullopt when the range is not inside one allocation.
std::optional<Allocation> find_containing(std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) MOCKDEV_REQUIRES(g_engine_mutex);
// Byte access (Note [Lazy backing]); the caller checked the ranges with find_containing.
void write_bytes(std::uint64_t address, const void* src, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
void read_bytes(std::uint64_t address, void* dst, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Fills `bytes` bytes with a repeated pattern of 1 or 4 bytes (memset D8 / D32).
void fill_bytes(std::uint64_t address, std::uint64_t bytes, std::uint32_t pattern,
                unsigned pattern_size) MOCKDEV_REQUIRES(g_engine_mutex);
// Device-to-device copy, overlap-safe.
void copy_bytes(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes of backing store in use (pages x page size), for tests of Note [Lazy backing].
std::uint64_t backed_bytes() MOCKDEV_REQUIRES(g_engine_mutex);

// Every live allocation by address, for leak reports.
const std::map<std::uint64_t, Allocation>& allocations() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
