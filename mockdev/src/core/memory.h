#pragma once
// Device memory of the simulated machine, vendor-neutral: capacity, exact byte accounting,
// and allocations at fake device addresses. Each allocation records the API that made it,
// so one API releasing its context frees only its own memory. Every function requires the
// engine lock (Note [Engine lock] in core/engine_lock.h); the state resets with the machine.
//
// Note [Device addresses]
// Device d owns the window [(d+1) << 44, (d+2) << 44). cuMemAlloc allocates in its lower
// half with a bump pointer, each allocation aligned to and taking a whole number of the
// device's granularity, except small allocations that share one (Note [Small
// allocations]); the upper half holds address reservations (Note [Virtual memory] in
// core/virtual_memory.h). Ranges are disjoint (an address names its device) and a granule's
// address is never reused, so a stale pointer is recognised as invalid unless a later small
// allocation took its place, as on a GPU. An allocation's bounds are the bytes asked for (a
// copy past them fails), its accounting the rounded bytes.
//
// Note [Allocation granularity]
// As the driver does, every device allocation (cuMemAlloc, cuMemCreate) is accounted in
// multiples of the device's granularity (2 MiB unless the machine file's
// `allocation_granularity` says otherwise): a 1-byte allocation takes 2 MiB from free
// memory. Creating a context takes the device's `context_reserve` (0 unless the machine
// file sets it) and releasing it gives it back. Bytes in use = allocations + reserves;
// free = capacity - in use (0 once set_capacity shrank the capacity below that). An
// allocation fails (OOM) when it does not fit in the free bytes, or when a memory fault
// (mockdev/memory.h) fires; a failed attempt changes nothing but the fault counter.
//
// Note [Small allocations]
// Recorded on an H100 (docs/HARDWARE.md, Recording 2): two 4 KiB cuMemAlloc allocations took
// one 2 MiB granule between them, the second right after the first, while a 3 MiB one took
// 4 MiB of its own. So an allocation asked with `shared_granule` and smaller than the
// granularity is carved out of a granule of its owner, device and context (first fit,
// lowest address first, blocks rounded up to kSmallBlockAlignment [inferred: the H100 showed
// only that 4 KiB needs no more]); a new granule is taken, and accounted, when none has room,
// and given back when its last block is freed [inferred]. A block is an allocation of its
// own (its bounds are the bytes asked for; accounted_bytes 0, its granule holding the
// charge), and its space is reused once freed: a new block there reads what the old one
// left, as device memory does. A memory fault counts every attempt, blocks included.
//
// Note [Lazy backing]
// Device memory holds real bytes, backed sparsely: 64 KiB pages created on the first write
// that touches them, so an 80 GiB device costs nothing until it is used and untouched bytes
// read as zero. Freeing an allocation drops the pages that lie wholly inside its range; a
// page it shares with a neighbour stays, which is harmless because granules are never
// reused (the freed part is never read again, and the neighbour's part was never written
// by the freed allocation); a small allocation's bytes go with its granule, and a block
// reused inside a live granule holds what the freed one left. Writing zeros into an absent
// page creates nothing.

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/engine_lock.h"
#include "mockdev/machine.h"

namespace mockdev::core {

inline constexpr int kAddressRangeShift = 44;

struct Allocation {
  Api owner = Api::kCuda;
  int device = 0;                     // physical
  std::uint64_t context = 0;          // the owner's context key: 0 = the device's default
                                      // (CUDA: primary) context, else the key the adapter chose
  std::uint64_t bytes = 0;            // as asked for: the bounds
  std::uint64_t accounted_bytes = 0;  // rounded to the granularity (Note [Allocation granularity])
  std::uint64_t granule = 0;          // a small allocation's shared granule (Note [Small
                                      // allocations]); 0: the allocation is its own
  const void* caller = nullptr;       // the call that made it (core/race_call_site.h), for the
                                      // leak report (core/leak_report.h)
};

// A granule shared by small allocations (Note [Small allocations]).
struct SharedGranule {
  Api owner = Api::kCuda;
  int device = 0;  // physical
  std::uint64_t context = 0;
  std::uint64_t bytes = 0;                        // the granularity: what it is accounted
  std::map<std::uint64_t, std::uint64_t> blocks;  // offset -> span of each live block
};
inline constexpr std::uint64_t kSmallBlockAlignment = 512;

// `bytes` (> 0) on physical `device` for `owner`'s context `context` (Allocation::context):
// its address, or nullopt when it does not fit (Note [Allocation granularity]), a memory
// fault fires, or the address range is spent. With `shared_granule`, an allocation smaller
// than the granularity shares a granule (Note [Small allocations]).
std::optional<std::uint64_t> allocate(Api owner, int device, std::uint64_t bytes,
                                      std::uint64_t context = 0, bool shared_granule = false)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The live allocation starting at `address`, or nullopt.
std::optional<Allocation> find_allocation(std::uint64_t address) MOCKDEV_REQUIRES(g_engine_mutex);
// Every live allocation `owner` made, by address (the leak report, core/leak_report.h).
std::vector<std::pair<std::uint64_t, Allocation>> live_allocations(Api owner)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Frees the live allocation starting at `address` (see find_allocation); false if none.
bool free_allocation(std::uint64_t address) MOCKDEV_REQUIRES(g_engine_mutex);
// Frees every allocation `owner` made on physical `device` in context `context`.
void free_device_allocations(Api owner, int device, std::uint64_t context)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes in use on physical `device`: allocations and context reserves (0 for an unknown
// device).
std::uint64_t used_bytes(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Capacity now (set_capacity may have shrunk it) and granularity of physical `device`.
std::uint64_t capacity_bytes(int device) MOCKDEV_REQUIRES(g_engine_mutex);
std::uint64_t granularity(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Takes one context's reserve on `device`; false (nothing taken) when it does not fit.
bool take_context_reserve(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Gives one context's reserve back.
void return_context_reserve(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Destroying the default context of `device`: frees every allocation `owner` made in it,
// and the physical handles created on the device (with their mappings), then returns its
// reserve.
void release_context_memory(Api owner, int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Destroying another context (`context` != 0) of `device`: frees the allocations `owner`
// made in it and returns its reserve; physical handles are not a context's.
void release_other_context_memory(Api owner, int device, std::uint64_t context)
    MOCKDEV_REQUIRES(g_engine_mutex);

// What the control API reports (mockdev/memory.h).
struct DeviceMemoryReport {
  std::uint64_t capacity = 0, granularity = 0, allocation_bytes = 0, reserve_bytes = 0, peak = 0;
};
DeviceMemoryReport memory_report(int device) MOCKDEV_REQUIRES(g_engine_mutex);
void reset_peak(int device) MOCKDEV_REQUIRES(g_engine_mutex);
// Memory faults (mockdev/memory.h); cleared by clear_memory_faults and by a new machine.
void fail_nth_allocation(int device, std::uint64_t nth) MOCKDEV_REQUIRES(g_engine_mutex);
void fail_allocations_above(int device, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);
void set_capacity(int device, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);
void clear_memory_faults() MOCKDEV_REQUIRES(g_engine_mutex);

// The live allocation, or mapped memory with read-write access (Note [Virtual memory]),
// that contains [address, address + bytes) wholly (bytes >= 1), with its base address in
// `*base`; nullopt when the range is not inside one. Mapped memory answers for the run of
// adjacent accessible mappings from the one holding `address`.
std::optional<Allocation> find_containing(std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) MOCKDEV_REQUIRES(g_engine_mutex);
// Byte access (Note [Lazy backing]); the caller checked the ranges with find_containing.
// Mapped addresses reach their handles' bytes (Note [Virtual memory]).
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
// Every granule small allocations share, by address (Note [Small allocations]).
const std::map<std::uint64_t, SharedGranule>& shared_granules() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
