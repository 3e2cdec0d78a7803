#pragma once
// The process-wide runtime: which backend serves the accelerator API, and its lazy-init,
// fork and RNG state.
//
// A RuntimeState bundles one Backend (nullptr = no accelerator) with everything that
// belongs to it: the lazy-init state machine (lazy_init_state.h), the device count
// learned at initialisation, the per-device RNG states, and a generation number that
// keys every thread's cached current device (accelerator.cpp). The default state is
// created on first use from ACCEL_BACKEND (backend_registry.h) and never destroyed (it
// may be used from atexit handlers and forked children). ScopedBackendOverride
// (backend_override.h) installs another on top for a test and restores the previous one.
//
// Thread safety: current_state() is one acquire load after the first call; the first call
// creates the default state under the stack lock, which the atfork handlers hold across
// fork() (Note [Fork safety]), so a child never inherits a half-made runtime. Installing
// and restoring overrides is for tests that own the process (no concurrent API calls).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "spi/device_limits.h"
#include "core/lazy_init_state.h"
#include "spi/backend.h"
#include "spi/status.h"
#include "core/stream_pool.h"
#include "rng/generator_set.h"

namespace accel::detail {

namespace alloc {
class CachingAllocator;  // core/caching_allocator.h
}

class RuntimeState {
 public:
  // `config_error` set: the accelerator could not be selected (bad ACCEL_BACKEND, malformed
  // or unmeetable ACCEL_REQUIRE_DEVICES); every call that needs the accelerator throws it.
  RuntimeState(std::unique_ptr<Backend> backend, std::optional<Status> config_error);
  RuntimeState(const RuntimeState&) = delete;
  RuntimeState& operator=(const RuntimeState&) = delete;
  ~RuntimeState();

  Backend* backend() const noexcept { return backend_.get(); }
  const std::optional<Status>& config_error() const noexcept { return config_error_; }
  LazyInitState& lazy() noexcept { return lazy_; }
  GeneratorSet& generators() noexcept { return generators_; }
  // The devices' stream pools (Note [Stream pools] in core/stream_pool.h).
  StreamPools& stream_pools() noexcept { return stream_pools_; }
  // The caching allocators (core/caching_allocator.h): created by
  // ensure_initialized() before the state is marked initialised (so a thread that sees
  // initialized() sees it), kept for the life of the state; null before that.
  alloc::CachingAllocator* allocator() const noexcept {
    return allocator_.load(std::memory_order_acquire);
  }
  // Takes ownership of `allocator` (ensure_initialized, under the init lock, once).
  void install_allocator(std::unique_ptr<alloc::CachingAllocator> allocator) noexcept;

  std::uint64_t generation() const noexcept { return generation_.load(std::memory_order_relaxed); }
  // Gives this state a new generation. Every thread's cached device becomes stale once the
  // generation is published (publish_thread_device_generation, thread_device.h).
  void renew_generation() noexcept;

  // The device count learned by the last successful backend initialisation.
  int device_count() const noexcept { return device_count_.load(std::memory_order_acquire); }
  void set_device_count(int count) noexcept {
    device_count_.store(count, std::memory_order_release);
  }

  // ACCEL_REQUIRE_DEVICES (device_requirement.h): 0 = no requirement. Set before the state
  // is installed (the default state) or by a test that owns the process.
  int required_devices() const noexcept { return required_devices_; }
  void set_required_devices(int required) noexcept { required_devices_ = required; }

  // Prints "accel: warning: <message>" on stderr the first time it is called for this
  // state; later calls print nothing (Note [Misconfiguration is an error]).
  void warn_once(const std::string& message) noexcept;

  // The state below this one in the override stack (nullptr for the bottom one).
  RuntimeState* previous() const noexcept { return previous_; }
  void set_previous(RuntimeState* previous) noexcept { previous_ = previous; }

 private:
  std::unique_ptr<Backend> backend_;
  std::optional<Status> config_error_;
  LazyInitState lazy_;
  GeneratorSet generators_;
  StreamPools stream_pools_;
  std::atomic<alloc::CachingAllocator*> allocator_{nullptr};  // owned
  std::atomic<std::uint64_t> generation_;
  std::atomic<int> device_count_{0};
  int required_devices_ = 0;
  std::atomic<bool> warned_{false};
  RuntimeState* previous_ = nullptr;
};

namespace runtime_internal {
extern std::atomic<RuntimeState*> g_top;  // the installed state; null before first use
// Creates the default state (once, under the stack lock) and returns the installed one.
RuntimeState* create_default_state();
}  // namespace runtime_internal

// The installed runtime; creates the default one from the environment on first use.
// Inline: it is on the slow paths of every call (one acquire load).
inline RuntimeState& current_state() {
  RuntimeState* state = runtime_internal::g_top.load(std::memory_order_acquire);
  if (state == nullptr) [[unlikely]]
    state = runtime_internal::create_default_state();
  return *state;
}

// Installs `state` on top of the current one; returns it. For ScopedBackendOverride.
RuntimeState* push_state(std::unique_ptr<RuntimeState> state);
// Removes `state` (which must be the top) and destroys it; the one below becomes current
// with a new generation.
void pop_state(RuntimeState* state);

// The number of visible devices as device_count() answers it, or the misconfiguration that
// makes the answer 0 (Note [Misconfiguration is an error]): the state's configuration
// error, the backend's configuration_status(), a driver count that failed, or fewer
// devices than ACCEL_REQUIRE_DEVICES. Nothing installed and no device are 0, not errors.
// Never initialises the backend (it may initialise the driver, as device_count() does when
// NVML cannot answer). Throws only std::bad_alloc.
Result<int> visible_device_count(RuntimeState& state);

// The backend, or throws: the configuration error, or kUnavailable "Cannot access
// accelerator device when none is available." when there is no accelerator.
Backend& require_backend(RuntimeState& state);

// Throws ForkError: "Cannot re-initialize <NAME> in forked subprocess. ...".
[[noreturn]] void throw_fork_error(RuntimeState& state);

// Throws ForkError when `state` is in a bad fork (Note [Fork safety]).
inline void fail_if_bad_fork(RuntimeState& state) {
  if (state.lazy().in_bad_fork()) [[unlikely]]
    throw_fork_error(state);
}

// Marks `state` fork-poisoning: a child forked from now on is in a bad fork. The atfork
// handlers themselves are installed when the runtime library loads (Note [Fork safety]).
void mark_fork_poisoning(RuntimeState& state) noexcept;

// Brings `state` up (Note [Deferred calls]): the allocator settings (ACCEL_ALLOC_CONF; a
// malformed one is kConfig naming the token, before the driver is touched),
// backend->initialize(), the RNG states, the caching allocators, then the queued calls. Returns at
// once when initialised, or on the thread that is running the queued calls. Throws as accel::init()
// documents.
void ensure_initialized(RuntimeState& state);

// True while this thread runs `state`'s queued calls inside ensure_initialized().
bool is_initializing_thread(const RuntimeState& state) noexcept;

// Throws kDriver "<NAME> error: invalid device ordinal (<op>: device=<i>, device_count=<n>)"
// unless index < the initialised device count. Requires ensure_initialized().
void check_device_ordinal(RuntimeState& state, int index, std::string_view operation);

// Throws kIndex "Device index <i> is out of range for DeviceIndex [0, 127]" unless
// 0 <= index <= kMaxDeviceIndex (PyTorch's DeviceIndex range).
[[noreturn]] void throw_device_index_range_error(long long index);
inline void check_device_index_range(long long index) {
  if (index < 0 || index > kMaxDeviceIndex) [[unlikely]]
    throw_device_index_range_error(index);
}

// The backend's name in upper case ("CUDA"), for PyTorch-style messages.
std::string upper_backend_name(const RuntimeState& state);

}  // namespace accel::detail
