#pragma once
// Implementation detail of the public headers (not API): the per-thread cache of the
// current device index, exposed so that DeviceIndexGuard can test it inline.
//
// docs/decisions/007-current-device-one-word-tls.md (installed in share/doc/accel/)
// explains the cache. What is here is only its encoding and fast-path tests. One 64-bit word per
// thread:
//
//   key = generation << 8 | index << 1 | pending        (index in [0, 127])
//
// An entry is valid when its generation is the one published in g_thread_device_key_base
// (generation << 8), which the runtime changes whenever every entry must be forgotten at
// once (a backend override installed or removed, a child forked after initialisation
// started). kForgottenKey matches no published base (generations start at 1, the base
// starts at 0 until a runtime exists). A test is one thread-local load, one relaxed atomic
// load and one compare: no read-modify-write, no call into the library.
//
// Initial-exec TLS: the runtime is a static library linked into the program (or into a
// library loaded with it), so the variable's address is a fixed offset from the thread
// pointer rather than a __tls_get_addr call. constinit on the declaration tells the
// compiler there is no dynamic initialiser, so there is no TLS wrapper call either.

#include <atomic>
#include <cstdint>

#if defined(__GNUC__) || defined(__clang__)
#define ACCEL_TLS_INITIAL_EXEC __attribute__((tls_model("initial-exec")))
#else
#define ACCEL_TLS_INITIAL_EXEC
#endif

namespace accel::detail {

inline constexpr std::uint64_t kForgottenKey = UINT64_MAX;
// A key no thread ever holds (generations stay below 2^56 - 1): for "never matches".
inline constexpr std::uint64_t kNeverMatchingKey = UINT64_MAX - 1;
inline constexpr unsigned kMaxCachedIndex = 127;  // kMaxDeviceIndex

extern constinit thread_local std::uint64_t t_thread_device_key ACCEL_TLS_INITIAL_EXEC;
extern constinit std::atomic<std::uint64_t> g_thread_device_key_base;

// The key this thread holds when `index` (in [0, 127]) is its current, not pending, device.
inline std::uint64_t current_thread_device_key(int index) noexcept {
  return g_thread_device_key_base.load(std::memory_order_relaxed) |
         static_cast<std::uint64_t>(index) << 1;
}

// True, with the index, when this thread's cached device is valid (current or pending):
// current_device_index()'s inline path.
inline bool cached_thread_device_index(int* index) noexcept {
  const std::uint64_t key = t_thread_device_key;
  if ((key & ~std::uint64_t{0xff}) != g_thread_device_key_base.load(std::memory_order_relaxed))
    return false;
  *index = static_cast<int>((key >> 1) & 0x7f);
  return true;
}

// True when this thread's cached device is `index` and is known current (not pending): a
// same-index exchange_device() has nothing to do. False for any index outside [0, 127].
inline bool thread_device_is_current(int index) noexcept {
  return static_cast<unsigned>(index) <= kMaxCachedIndex &&
         t_thread_device_key == current_thread_device_key(index);
}

// True when this thread's cached device is `index`, current or pending: a same-index
// maybe_exchange_device() has nothing to do. False for any index outside [0, 127].
inline bool thread_device_is(int index) noexcept {
  return static_cast<unsigned>(index) <= kMaxCachedIndex &&
         (t_thread_device_key & ~std::uint64_t{1}) ==
             (g_thread_device_key_base.load(std::memory_order_relaxed) |
              static_cast<std::uint64_t>(index) << 1);
}

}  // namespace accel::detail
