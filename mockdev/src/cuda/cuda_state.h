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

#include <cstdint>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"

// The opaque context handle type, defined by the mock (the ABI header only declares it).
struct accel::cuda_abi::CUctx_st {
  int physical_device = 0;  // index into MachineSpec::devices
  int ordinal = 0;          // the CUdevice it was retained for (a visible ordinal)
  int refcount = 0;         // primary-context retain count; 0 = inactive
};

namespace mockdev::cuda {

using accel::cuda_abi::CUctx_st;

struct CudaState {
  std::uint64_t generation = 0;  // the core machine generation this state belongs to
  bool initialized = false;      // cuInit succeeded (in init_pid)
  pid_t init_pid = 0;
  std::vector<int> visible;        // CUdevice ordinal -> physical device index
  std::vector<CUctx_st*> primary;  // by physical device: created at the first retain
  std::unordered_set<const CUctx_st*> live_contexts;
  // Peer access enabled from the first context to the second, as (physical device of the
  // current context, physical device of the peer context): only primary contexts exist,
  // so a physical device names its context (driver_peer.cpp).
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

// The calling thread's current context (nullptr when none, or when it was set for an
// earlier machine), and its setter.
CUctx_st* current_context() MOCKDEV_REQUIRES(core::g_engine_mutex);
void set_current_context(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);
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
