#pragma once
// Virtual memory of the simulated machine, vendor-neutral: address reservations, physical
// memory handles, and mappings of the one into the other (what CUDA's cuMemAddressReserve,
// cuMemCreate, cuMemMap, cuMemSetAccess, cuMemUnmap, cuMemRelease, cuMemAddressFree do).
// Every function requires the engine lock; the state resets with the machine.
//
// Note [Virtual memory]
// A reservation is a range of the upper half of a device's address window (Note [Device
// addresses]): [(d+1) << 44 + 2^43, (d+2) << 44), taken with a bump pointer aligned to the
// device's granularity (or a larger power-of-two alignment), never reused. A physical
// handle is memory of one device, counted in that device's bytes in use from creation
// until it is both released and unmapped everywhere (the driver frees it only then). Its
// bytes live in a private address space ([2^62, ...), never a device address), so they
// follow the handle: data written through one mapping is read through another mapping of
// the same handle, and mapping a handle anew shows what it held. A mapping covers a whole
// handle (offset 0), lies inside one reservation and overlaps no other mapping; it starts
// with no access. Copies, memsets and kernels see mapped memory (find_containing in
// core/memory.h) only where the handle's own device was granted read-write access, and a
// range may span adjacent mappings, as the allocator's expandable segments need. Without
// access the range is outside every allocation: the call fails as for any invalid device
// address (CUDA_ERROR_INVALID_VALUE), at the call rather than as a later illegal-address
// fault, so a test sees it where it happened.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/engine_lock.h"

namespace mockdev::core {

struct Reservation {
  int device = 0;  // whose address window holds it
  std::uint64_t bytes = 0;
};

struct Mapping {
  std::uint64_t bytes = 0;
  std::uint64_t handle = 0;
  bool read_write = false;  // cuMemSetAccess granted the handle's device read-write access
};

struct PhysicalMemory {
  int device = 0;           // physical device the memory is on
  int owner_device = 0;     // the device of the context that created it (Note [Primary contexts])
  std::uint64_t bytes = 0;  // a multiple of the device's granularity
  std::uint64_t physical = 0;  // where its bytes live (Note [Virtual memory])
  bool released = false;       // cuMemRelease was called; freed once unmapped
  unsigned mappings = 0;
};

// The base of a new reservation of `bytes` (a multiple of the granularity) in `device`'s
// window aligned to max(alignment, granularity); nullopt when the window is spent.
std::optional<std::uint64_t> reserve_address(int device, std::uint64_t bytes,
                                             std::uint64_t alignment)
    MOCKDEV_REQUIRES(g_engine_mutex);

enum class VmResult { kOk, kInvalid, kInUse, kOutOfMemory };

// Frees the reservation that starts at `base` and has exactly `bytes`: kInvalid when there
// is none, kInUse while a mapping lies inside it.
VmResult free_address(std::uint64_t base, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);

// A new handle of `bytes` (a multiple of `device`'s granularity) on `device`, owned by the
// context on `owner_device`: kOutOfMemory (faults, capacity) leaves nothing behind.
std::optional<std::uint64_t> create_physical(int device, int owner_device, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The live (not released) handle, or nullopt.
std::optional<PhysicalMemory> find_physical(std::uint64_t handle) MOCKDEV_REQUIRES(g_engine_mutex);
// Releases a live handle (false if none); its memory goes when its last mapping does.
bool release_physical(std::uint64_t handle) MOCKDEV_REQUIRES(g_engine_mutex);

// Maps the whole live `handle` (of `bytes`) at `base`: kInvalid unless the range lies in one
// reservation, overlaps no mapping and `bytes` is the handle's size.
VmResult map_physical(std::uint64_t base, std::uint64_t bytes, std::uint64_t handle)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The mappings [base, base + bytes) covers, when it covers whole, adjacent mappings
// exactly; nullopt otherwise. Used to check cuMemSetAccess and cuMemUnmap.
struct MappedPiece {
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
  int device = 0;  // the handle's
};
std::optional<std::vector<MappedPiece>> mapped_pieces(std::uint64_t base, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Sets the read-write flag of the mappings [base, base + bytes) covers (mapped_pieces
// checked it).
void set_read_write(std::uint64_t base, std::uint64_t bytes, bool read_write)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Removes the mappings [base, base + bytes) covers (mapped_pieces checked it), freeing
// released handles that are no longer mapped.
void unmap_range(std::uint64_t base, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);

// Every reservation, mapping and handle, for the control API.
const std::map<std::uint64_t, Reservation>& reservations() MOCKDEV_REQUIRES(g_engine_mutex);
const std::map<std::uint64_t, Mapping>& mappings() MOCKDEV_REQUIRES(g_engine_mutex);
const std::map<std::uint64_t, PhysicalMemory>& physical_handles() MOCKDEV_REQUIRES(g_engine_mutex);

// Whether `address` lies in the reservation half of a device window.
bool in_reservation_space(std::uint64_t address);

}  // namespace mockdev::core
