#pragma once
// The per-thread cache of the current device index: its rules, and the operations the
// core performs on it. The cache itself and its inline fast-path tests are in
// accel/detail/thread_device_cache.h (public only so that DeviceIndexGuard can inline
// them); they are defined in accelerator.cpp.
//
// Note [Thread-local current device]
// The backend knows each thread's current device (CUDA: the thread's current context or
// its recorded target), but asking it costs a driver call. The core therefore caches, per
// thread, {generation, index, pending} packed in one word
// (accel/detail/thread_device_cache.h). An entry is valid while its generation is the
// published one, which is always the generation of the installed RuntimeState
// (runtime.h). It is filled from Backend::current_device() on first use per thread (after
// checking the answer is a visible index) and updated on every successful switch, and
// only while the runtime is initialised and its generation is the published one, so a hit
// implies "initialised in this state and not in a bad fork"; the thread's stream table is
// brought to that generation first (accel/detail/thread_stream_cache.h). Every entry of
// every thread is forgotten at once by publishing a new generation: when a
// ScopedBackendOverride is installed or removed, and in a child forked after
// initialisation started (whose calls must then reach the bad-fork check).
// One thread's entry is forgotten when a backend call that switched the thread's context
// for its duration failed (the thread may have been left elsewhere). `pending` records
// that the index came from maybe_set_device (the context may not be current yet):
// set_device to the same index must then still reach the backend to create and apply the
// context. A hit costs one thread-local load and one relaxed atomic load. A thread's
// first entry, and a forgotten one, is kForgottenKey, which never matches. Calling the
// driver directly (cuCtxSetCurrent) behind the runtime's back is not seen.

#include <cstdint>

#include "accel/detail/thread_device_cache.h"

namespace accel::detail {

// After a guard failed to restore `index`: records it as this thread's (pending) device so
// the thread still reports the previous index (DeviceIndexGuard's contract).
void remember_thread_device_after_failed_restore(int index) noexcept;

// Forgets this thread's entry: the next query asks the backend.
inline void forget_thread_device() noexcept { t_thread_device_key = kForgottenKey; }

// Makes `generation` the one valid entries carry (forgetting every other entry); 0 (no
// runtime) matches no entry.
inline void publish_thread_device_generation(std::uint64_t generation) noexcept {
  g_thread_device_key_base.store(generation << 8, std::memory_order_relaxed);
}

// Whether this thread's entry is valid, and its index: cached_thread_device_index() in
// accel/detail/thread_device_cache.h.
inline bool thread_device_pending() noexcept { return (t_thread_device_key & 1) != 0; }

// Records `index` (in [0, 127]) for this thread under `generation`.
inline void store_thread_device(std::uint64_t generation, int index, bool pending) noexcept {
  t_thread_device_key =
      generation << 8 | static_cast<std::uint64_t>(index) << 1 | (pending ? 1u : 0u);
}

}  // namespace accel::detail
