#pragma once
// The CUDA adapter's own state: driver initialisation and its pid, the visible-device map
// (CUdevice ordinal -> physical device), primary contexts and the handle registry, and the
// per-thread current context. Devices, memory and faults are the core's (core/engine.h).
//
// Ownership: one CudaState, never destroyed (Note [Leaky state] in core/engine.h); context
// objects are never freed either, so a stale handle is rejected through the registry,
// never dereferenced (Note [Primary contexts] in driver_context.cpp). It starts afresh
// whenever the core installs a machine (core::Engine::generation).
// Thread safety: reachable only with the engine lock held (Note [Engine lock]); the
// per-thread current context is thread_local and is also read under the lock.

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"

namespace mockdev::cuda {
// A context's settings that calls change and read back (driver_context.cpp): limits by
// CUlimit value and the cache configuration.
struct ContextSettings {
  std::array<std::size_t, accel::cuda_abi::CU_LIMIT_MAX> limits{};
  accel::cuda_abi::CUfunc_cache cache_config = accel::cuda_abi::CU_FUNC_CACHE_PREFER_NONE;
};
}  // namespace mockdev::cuda

// The opaque context handle type, defined by the mock (the ABI header only declares it).
// Note [Created contexts] in driver_context.cpp.
struct accel::cuda_abi::CUctx_st {
  int physical_device = 0;  // index into MachineSpec::devices
  int ordinal = 0;          // the CUdevice it was retained or created for (a visible ordinal)
  int refcount = 0;         // primary: retain count; created: 1 until destroyed; 0 = inactive
  bool primary = true;      // false for a context made by cuCtxCreate
  unsigned flags = 0;       // CUctx_flags as set at creation / by cuCtxSetFlags
  unsigned long long id = 0;  // cuCtxGetId: unique for the machine, creation order
  int released_by_reset = 0;  // primary: retains a reset ended that a release may still give
  mockdev::cuda::ContextSettings settings;
  const void* caller = nullptr;  // the call that made it (the leak report, core/leak_report.h)
};

namespace mockdev::cuda {

using accel::cuda_abi::CUctx_st;

// What cuMemAdvise and cuMemPrefetchAsync recorded for one managed allocation (Note
// [Managed memory] in driver_managed.cpp); a location of type INVALID is "none".
struct ManagedAdvice {
  bool read_mostly = false;
  accel::cuda_abi::CUmemLocation preferred{accel::cuda_abi::CU_MEM_LOCATION_TYPE_INVALID, 0};
  accel::cuda_abi::CUmemLocation last_prefetch{accel::cuda_abi::CU_MEM_LOCATION_TYPE_INVALID, 0};
  std::set<int> accessed_by;  // ordinals; kDeviceCpu for the host
};

// Managed allocations are anonymous mappings of whole pages (driver_managed.cpp): the bytes
// the mapping for `bytes` takes, which cuMemFree unmaps.
inline constexpr std::size_t kManagedPageBytes = 4096;
inline std::size_t managed_mapping_bytes(std::size_t bytes) {
  return (bytes + kManagedPageBytes - 1) / kManagedPageBytes * kManagedPageBytes;
}

// Managed memory of `bytesize` bytes in `ctx` (driver_managed.cpp): what cuMemAllocManaged
// does once its arguments and context are checked, and how a module's __managed__
// variables are allocated. CUDA_ERROR_NOT_SUPPORTED where the device has no managed memory.
accel::cuda_abi::CUresult allocate_managed(CUctx_st* ctx, std::size_t bytesize, unsigned flags,
                                           accel::cuda_abi::CUdeviceptr* dptr)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

struct CudaState {
  std::uint64_t generation = 0;  // the core machine generation this state belongs to
  bool initialized = false;      // cuInit succeeded (in init_pid)
  pid_t init_pid = 0;
  std::vector<int> visible;        // CUdevice ordinal -> physical device index
  std::vector<CUctx_st*> primary;  // by physical device: created at the first retain
  std::unordered_set<const CUctx_st*> live_contexts;  // primary and created, destroyed ones too
  std::vector<CUctx_st*> created;  // cuCtxCreate's contexts not yet destroyed, creation order
  unsigned long long next_context_id = 1;
  // Buffer ids (Note [Pointer attributes] in driver_pointer.cpp) whose memory has
  // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set.
  std::set<std::uint64_t> sync_memops;
  // Advice and prefetches of managed allocations, by buffer id (driver_managed.cpp).
  std::map<std::uint64_t, ManagedAdvice> managed_advice;
  // Peer access enabled from the first context to the second, as (physical device of the
  // current context, physical device of the peer context): kept per pair of devices, so a
  // created context shares its device's peer mappings (decision 199; driver_peer.cpp).
  std::set<std::pair<int, int>> peer_access;
};

// Forgets every peer access from or to physical device `physical`'s primary context: its
// last retain was released (driver_peer.cpp).
void drop_peer_access(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The state for the installed machine.
CudaState& cuda_state() MOCKDEV_REQUIRES(core::g_engine_mutex);

// True in a child forked after its parent initialised the driver (the pid gate).
bool in_forked_child() MOCKDEV_REQUIRES(core::g_engine_mutex);
// True when cuInit has succeeded in this very process.
bool driver_ready() MOCKDEV_REQUIRES(core::g_engine_mutex);
// What a successful cuInit records: the driver is ready in this process, for this machine
// (and, for unlocked_current_context, from now on without the lock).
void mark_initialized() MOCKDEV_REQUIRES(core::g_engine_mutex);

// The calling thread's current context without the engine lock, where that answer is the
// locked one (Note [Unlocked answers] in core/engine.h): the engine is quiet, cuInit succeeded
// for the installed machine, the thread's stack was built for that machine (never so in a
// forked child, whose stack starts cleared) and the thread is not inside a host function.
// nullopt: take the lock. Reads only the calling thread's own state and atomics.
std::optional<CUctx_st*> unlocked_current_context() noexcept;

// The calling thread's context stack (CUDA Driver API, "Context Management"): its top is
// the current context (nullptr when the stack is empty, or was built for an earlier
// machine). set_current_context replaces the top (pushes onto an empty stack; nullptr pops,
// as cuCtxSetCurrent does); push_context and pop_context are cuCtxPushCurrent and
// cuCtxPopCurrent's (pop returns nullptr on an empty stack). Note [Context stack] in
// driver_context.cpp.
CUctx_st* current_context() MOCKDEV_REQUIRES(core::g_engine_mutex);
void set_current_context(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);
void push_context(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUctx_st* pop_context() MOCKDEV_REQUIRES(core::g_engine_mutex);
// The settings a new (or reset) context starts with (Note [Context limits] in
// cuda_state.cpp).
ContextSettings default_context_settings(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex);
// A new context object for physical device `physical` and ordinal `dev`: registered, with
// the next id and the default settings (the device's limits), refcount 0.
CUctx_st* new_context(int physical, int dev, bool primary) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The owner key of memory `ctx` allocates (core::Allocation::context): 0 for a primary
// context, its id for a created one.
std::uint64_t memory_key(const CUctx_st* ctx);
// Whether `ctx` is a context handle this machine handed out (never dereferences it).
bool is_registered(const CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The current context if it is alive and active (retained), else nullptr.
CUctx_st* active_current_context() MOCKDEV_REQUIRES(core::g_engine_mutex);
// For calls that do work on the current context: the context, or the code to fail with --
// CUDA_ERROR_INVALID_CONTEXT with no current context, CUDA_ERROR_CONTEXT_IS_DESTROYED when
// the current one is a primary context whose last retain was released (the handle stays
// current; recorded on real hardware, docs/HARDWARE.md).
struct WorkContext {
  CUctx_st* ctx = nullptr;
  accel::cuda_abi::CUresult error = accel::cuda_abi::CUDA_SUCCESS;
};
WorkContext context_for_work() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
