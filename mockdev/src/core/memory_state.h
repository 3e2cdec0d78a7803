#pragma once
// The state behind core/memory.h and core/virtual_memory.h, shared by memory.cpp and
// virtual_memory.cpp only (no other file includes it). Requires the engine lock; started
// afresh for every installed machine (Note [Leaky state] in core/engine.h).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/engine_lock.h"
#include "core/memory.h"
#include "core/virtual_memory.h"

namespace mockdev::core::detail {

// Run-time memory faults of one device (mockdev/memory.h).
struct MemoryFaults {
  std::optional<std::uint64_t> fail_nth;  // 1-based, counted in `attempts`
  std::uint64_t attempts = 0;             // allocation attempts since fail_nth was set
  std::optional<std::uint64_t> fail_above;
};

struct DeviceMemory {
  std::uint64_t capacity = 0;          // now: set_capacity may shrink it
  std::uint64_t granularity = 0;       // Note [Allocation granularity]
  std::uint64_t context_reserve = 0;   // what one live context takes
  std::uint64_t allocation_bytes = 0;  // cuMemAlloc + cuMemCreate, rounded
  std::uint64_t reserve_bytes = 0;     // taken by live contexts
  std::uint64_t peak = 0;              // max of allocation_bytes + reserve_bytes
  std::uint64_t next_offset = 0;       // bump pointer, lower half of the device's range
  std::uint64_t next_va_offset = 0;    // bump pointer, upper half (reservations)
  MemoryFaults faults;

  std::uint64_t used() const { return allocation_bytes + reserve_bytes; }
};

struct MemoryState {
  std::uint64_t generation = 0;  // the machine generation this state belongs to
  std::vector<DeviceMemory> devices;
  std::map<std::uint64_t, Allocation> allocations;    // cuMemAlloc, by address
  std::map<std::uint64_t, SharedGranule> granules;    // Note [Small allocations], by address
  std::map<std::uint64_t, Reservation> reservations;  // by base address
  std::map<std::uint64_t, Mapping> mappings;          // by base address
  std::map<std::uint64_t, PhysicalMemory> handles;    // by handle
  std::uint64_t next_handle = 1;
  std::uint64_t next_physical = 0;  // bump pointer of the handles' byte space
  std::map<std::uint64_t, std::unique_ptr<std::byte[]>> pages;  // by address >> kPageShift
};

inline constexpr int kPageShift = 16;  // Note [Lazy backing]: 64 KiB pages
inline constexpr std::uint64_t kPageBytes = std::uint64_t{1} << kPageShift;
inline constexpr std::uint64_t kRangeBytes = std::uint64_t{1} << kAddressRangeShift;
inline constexpr std::uint64_t kHalfRange = kRangeBytes / 2;
// Where the bytes of cuMemCreate handles live (Note [Virtual memory]): far above every
// device range, never a device address.
inline constexpr std::uint64_t kPhysicalBase = std::uint64_t{1} << 62;

MemoryState& memory() MOCKDEV_REQUIRES(g_engine_mutex);

inline std::uint64_t round_up(std::uint64_t bytes, std::uint64_t granularity) {
  return (bytes + granularity - 1) / granularity * granularity;
}

// Whether a new allocation of `requested` bytes (`rounded` as accounted) may be made on
// `device`: counts the attempt against the faults, then checks capacity. False = OOM.
bool admit(MemoryState& m, int device, std::uint64_t requested, std::uint64_t rounded);
// Tells the observers (OpObserver::on_memory) the bytes now in use on `device`: every change
// of a device's allocation or reserve bytes calls it.
void memory_changed(MemoryState& m, int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Adds `bytes` to the device's allocation bytes and moves the peak.
void charge(MemoryState& m, int device, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);
// Drops the backing pages wholly inside [base, base + bytes) (Note [Lazy backing]).
void drop_pages(MemoryState& m, std::uint64_t base, std::uint64_t bytes);
// Frees the handles whose owning context was on `owner_device`, with their mappings.
void free_context_handles(MemoryState& m, int owner_device) MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core::detail
