#pragma once
// The per-thread cache of the current device index (defined in accelerator.cpp).
//
// Note [Thread-local current device]
// The backend knows each thread's current device (CUDA: the thread's current context or
// its recorded target), but asking it costs a driver call. The core therefore caches, per
// thread, {generation of the RuntimeState it belongs to, index, pending}. It is filled
// from Backend::current_device() on first use per thread and updated on every successful
// switch, and only while the runtime is initialised, so a hit implies "initialised in this
// state". A RuntimeState's generation changes when a ScopedBackendOverride is installed or
// removed, which invalidates every thread's cache at once. `pending` records that the
// index came from maybe_set_device (the context may not be current yet): set_device to
// the same index must then still reach the backend to create and apply the context.
// A hit costs a few thread-local and relaxed atomic loads, including the bad-fork check.
// Calling the driver directly (cuCtxSetCurrent) behind the runtime's back is not seen.

namespace accel::detail {

// After a guard failed to restore `index`: records it as this thread's (pending) device so
// the thread still reports the previous index (DeviceIndexGuard's contract).
void remember_thread_device_after_failed_restore(int index) noexcept;

}  // namespace accel::detail
