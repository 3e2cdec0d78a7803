#pragma once
// Pinned (page-locked) host memory, vendor-neutral: the ranges a driver allocated for the
// host or registered, and the bytes they hold per process. Copies consult it to decide when
// host bytes move (the CUDA Driver API's "API synchronization behavior"): a pinned endpoint is read
// or written when the operation executes, a pageable one at the call. Requires the engine lock;
// starts afresh with each installed machine.
//
// Note [Device-accessible host memory]
// A range marked device_accessible is host memory that device work may use at its own
// address (unified addressing: memory from cuMemAllocHost / cuMemHostAlloc, memory registered
// with CU_MEMHOSTREGISTER_DEVICEMAP, managed memory). core::find_containing answers for it
// like an allocation, and the byte functions of core/memory.h read and write its host bytes,
// so every copy, memset and kernel argument that takes device memory takes it too.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/engine_lock.h"
#include "mockdev/machine.h"

namespace mockdev::core {

struct PinnedRange {
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
  bool allocated = false;  // true: the driver allocated it (AllocHost); false: registered
  // What the adapter that made it records (pointer queries); the core reads only
  // device_accessible (Note [Device-accessible host memory]).
  bool device_accessible = false;
  bool managed = false;          // managed memory (cuMemAllocManaged): not counted as pinned
  unsigned flags = 0;            // the flags it was allocated or registered with
  int device = 0;                // physical device of the context that made it
  std::uint64_t context = 0;     // that context's key in the adapter (core::Allocation::context)
  std::uint64_t id = 0;          // set by add_pinned: unique for the machine, never reused
  Api owner = Api::kCuda;        // the API that made it
  const void* caller = nullptr;  // set by add_pinned: the call that made it (leak report)
};

// Records [base, base + bytes) as pinned, with what `range` says of it. False when it
// overlaps a pinned range already.
bool add_pinned(PinnedRange range) MOCKDEV_REQUIRES(g_engine_mutex);
// Shorthand: a plain range of `owner`, host-only.
inline bool add_pinned(Api owner, std::uint64_t base, std::uint64_t bytes, bool allocated)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  PinnedRange range{base, bytes, allocated};
  range.owner = owner;
  return add_pinned(range);
}
// Every pinned range `owner` made, by base address (the leak report, core/leak_report.h).
std::vector<PinnedRange> pinned_ranges(Api owner) MOCKDEV_REQUIRES(g_engine_mutex);
// The pinned range that holds [address, address + bytes) wholly (bytes >= 1), or nullopt.
std::optional<PinnedRange> pinned_containing(std::uint64_t address, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// The pinned range starting exactly at `base`, or nullopt.
std::optional<PinnedRange> pinned_at(std::uint64_t base) MOCKDEV_REQUIRES(g_engine_mutex);
// Removes the pinned range starting at `base`; false if none.
bool remove_pinned(std::uint64_t base) MOCKDEV_REQUIRES(g_engine_mutex);
// Whether [address, address + bytes) (bytes >= 1) lies wholly inside one pinned range that
// device work may use (Note [Device-accessible host memory]).
bool device_accessible_host(std::uint64_t address, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Whether [address, address + bytes) lies wholly inside one pinned range.
bool is_pinned(std::uint64_t address, std::uint64_t bytes) MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes pinned now (allocated and registered together), for the control API.
std::uint64_t pinned_bytes() MOCKDEV_REQUIRES(g_engine_mutex);
// Bytes the driver allocated as pinned host memory for this process (AllocHost, HostAlloc;
// registered ranges are the process's own memory and do not count).
std::uint64_t allocated_pinned_bytes() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
