#pragma once
// Implementation detail of the public headers (not API): the per-thread cache of the
// current device index, exposed so that DeviceIndexGuard can test it inline.
//
// Note [Thread-local current device] (runtime/src/core/thread_device.h) explains the
// cache. What is here is only its fast-path test: an entry is valid when it carries the
// generation that g_thread_device_generation publishes, which the runtime changes whenever
// every entry must be forgotten at once (a backend override installed or removed, a child
// forked from a parent that had started initialising). One thread-local load and one
// relaxed atomic load, no read-modify-write, no call into the library.
//
// Initial-exec TLS: the variable lives in the executable or in a library loaded at start
// (the runtime is linked, never dlopen'ed after start), so its address is a fixed offset
// from the thread pointer rather than a __tls_get_addr call. constinit on the declaration
// tells the compiler there is no dynamic initialiser, so no TLS wrapper call either.

#include <atomic>
#include <cstdint>

#if defined(__GNUC__) || defined(__clang__)
#define ACCEL_TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#else
#define ACCEL_TLS_INITIAL_EXEC
#endif

namespace accel::detail {

struct ThreadDeviceCache {
  std::uint64_t generation = 0;  // 0: never valid
  int index = 0;
  bool pending = false;  // recorded by maybe_set_device: the context may not be current yet
};

extern constinit thread_local ThreadDeviceCache t_thread_device ACCEL_TLS_INITIAL_EXEC;
// The generation valid entries carry; UINT64_MAX (never stored) until a runtime exists.
extern constinit std::atomic<std::uint64_t> g_thread_device_generation;

// True when this thread's cached device is `index` and is known current: a same-index
// exchange_device() has nothing to do.
inline bool thread_device_is_current(int index) noexcept {
  const ThreadDeviceCache& cache = t_thread_device;
  return cache.generation == g_thread_device_generation.load(std::memory_order_relaxed) &&
         cache.index == index && !cache.pending;
}

// True when this thread's cached device is `index` (current or pending): a same-index
// maybe_exchange_device() has nothing to do.
inline bool thread_device_is(int index) noexcept {
  const ThreadDeviceCache& cache = t_thread_device;
  return cache.generation == g_thread_device_generation.load(std::memory_order_relaxed) &&
         cache.index == index;
}

}  // namespace accel::detail
