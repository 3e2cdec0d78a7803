// The installed-runtime stack, lazy initialisation and the atfork handlers.
#include "core/runtime.h"

#include <pthread.h>

#include <cstdio>
#include <exception>
#include <mutex>

#include "allocator/allocator_config.h"
#include "allocator/oom_message.h"
#include "core/backend_registry.h"
#include "core/caching_allocator.h"
#include "core/tool_library.h"
#include "core/device_requirement.h"
#include "spi/environment.h"
#include "spi/fork_gate.h"
#include "spi/thread_device.h"

namespace accel::detail {

namespace {

std::atomic<std::uint64_t> g_next_generation{1};
using runtime_internal::g_top;

// Guards the state stack (creation of the default state, overrides). A plain global with a
// constexpr constructor: no function-local static whose guard a fork could catch.
constinit std::mutex g_stack_mutex;
RuntimeState* g_default = nullptr;  // under g_stack_mutex

// The state whose queued calls this thread is running (Note [Deferred calls]).
thread_local const RuntimeState* t_initializing = nullptr;

// The generation of the installed state is the one valid thread-device entries carry.
// Every generation published is drawn from g_next_generation under g_stack_mutex (or in a
// fork child, where the forking thread is alone) just before it is first published, so a
// published generation is never older than one published before it: no thread holds a key
// of a generation newer than the published one (StreamGuard's inline entry relies on it,
// accel/detail/thread_stream_cache.h).
void publish_top_generation() noexcept {
  RuntimeState* top = g_top.load(std::memory_order_relaxed);
  publish_thread_device_generation(top != nullptr ? top->generation() : 0);
}

// Note [Fork safety]: the atfork handlers. prepare takes the stack lock (no state is being
// created or installed across fork()) and every state's queue lock, plus the init lock of
// states that are not fork-poisoning (no lazy_call() is half-way through its push), then
// lets each backend take its own; parent releases all of it; child marks poisoning states
// as in a bad fork, forgets every thread's cached device and releases the same locks,
// which the forking thread — the only one left — holds. A poisoning state's init lock is
// never waited for: it is held across the backend's initialisation and the replay of user
// callbacks, and waiting for it could deadlock the fork.
void on_fork_prepare() noexcept {
  g_stack_mutex.lock();
  lock_environment_for_fork();  // Note [Environment reads]
  for (RuntimeState* state = g_top.load(); state != nullptr; state = state->previous()) {
    state->lazy().lock_for_fork();
    if (state->backend() != nullptr) state->backend()->prepare_fork();
  }
}

void on_fork_parent() noexcept {
  for (RuntimeState* state = g_top.load(); state != nullptr; state = state->previous()) {
    if (state->backend() != nullptr) state->backend()->after_fork_parent();
    state->lazy().unlock_after_fork();
  }
  unlock_environment_after_fork();
  g_stack_mutex.unlock();
}

void on_fork_child() noexcept {
  for (RuntimeState* state = g_top.load(); state != nullptr; state = state->previous()) {
    if (state->lazy().fork_poisoning()) {
      state->lazy().set_in_bad_fork();
      state->renew_generation();
    }
    if (state->backend() != nullptr) state->backend()->after_fork_child();
    state->lazy().unlock_after_fork();
  }
  publish_top_generation();
  unlock_environment_after_fork();
  g_stack_mutex.unlock();
}

// Installed when the runtime is loaded, before any runtime lock can be taken (a handler
// installed later could miss a fork that catches its locks). Dynamic initialisation of a
// namespace-scope object runs before main() or during the dlopen() that loads us, and the
// handlers touch only constant-initialised objects.
// The fork gate's handlers go in after these, so its prepare runs first (Note [Fork gate]).
[[maybe_unused]] const bool g_fork_handlers_installed = [] {
  const bool runtime_handlers =
      pthread_atfork(&on_fork_prepare, &on_fork_parent, &on_fork_child) == 0;
  return install_fork_gate() && runtime_handlers;
}();

}  // namespace

namespace runtime_internal {

constinit std::atomic<RuntimeState*> g_top{nullptr};

RuntimeState* create_default_state() {
  {
    std::lock_guard lock(g_stack_mutex);
    if (g_default != nullptr) return g_top.load(std::memory_order_acquire);
  }
  // Note [Which accelerator] (backend_registry.h): selection may fork a backend's probe
  // child, whose atfork prepare handler takes g_stack_mutex, so it runs unlocked. Two
  // threads may both select; the second one's selection is dropped below.
  BackendSelection selection = select_backend_from_environment();
  std::lock_guard lock(g_stack_mutex);
  if (g_default == nullptr) {
    Result<int> required = required_devices_from_environment();
    std::optional<Status> error = std::move(selection.error);
    if (!error && !required.ok()) error = required.status();
    // No accelerator selected, yet devices are required: known without loading anything.
    if (!error && required.ok() && *required > 0 && selection.backend == nullptr) {
      error = required_devices_error(*required, 0,
                                     "no accelerator selected: ACCEL_BACKEND=none or no "
                                     "backend compiled");
    }
    g_default = new RuntimeState(std::move(selection.backend), std::move(error));
    if (required.ok()) g_default->set_required_devices(*required);
    // An override installed before first use sits on top; the default goes underneath.
    RuntimeState* top = g_top.load();
    if (top == nullptr) {
      g_top.store(g_default, std::memory_order_release);
      publish_top_generation();
    } else {
      RuntimeState* bottom = top;
      while (bottom->previous() != nullptr) bottom = bottom->previous();
      bottom->set_previous(g_default);
    }
  }
  return g_top.load(std::memory_order_acquire);
}

}  // namespace runtime_internal

RuntimeState::RuntimeState(std::unique_ptr<Backend> backend, std::optional<Status> config_error)
    : backend_(std::move(backend)),
      config_error_(std::move(config_error)),
      generation_(g_next_generation.fetch_add(1)) {}

RuntimeState::~RuntimeState() { delete allocator_.load(); }

void RuntimeState::install_allocator(std::unique_ptr<alloc::CachingAllocator> allocator) noexcept {
  allocator_.store(allocator.release(), std::memory_order_release);
}

void RuntimeState::renew_generation() noexcept {
  generation_.store(g_next_generation.fetch_add(1), std::memory_order_relaxed);
}

void RuntimeState::warn_once(const std::string& message) noexcept {
  if (warned_.exchange(true)) return;
  std::fprintf(stderr, "accel: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

RuntimeState* push_state(std::unique_ptr<RuntimeState> state) {
  current_state();  // the default state goes underneath every override
  std::lock_guard lock(g_stack_mutex);
  RuntimeState* raw = state.release();
  raw->set_previous(g_top.load());
  raw->renew_generation();  // drawn at construction, possibly before the one published now
  g_top.store(raw, std::memory_order_release);
  publish_top_generation();
  return raw;
}

void pop_state(RuntimeState* state) {
  {
    std::lock_guard lock(g_stack_mutex);
    if (g_top.load() != state) std::terminate();  // overrides must nest
    RuntimeState* previous = state->previous();
    previous->renew_generation();
    g_top.store(previous, std::memory_order_release);
    publish_top_generation();
  }
  delete state;
}

Backend& require_backend(RuntimeState& state) {
  if (state.config_error()) throw_error(*state.config_error());
  if (state.backend() == nullptr) {
    throw Error(ErrorKind::kUnavailable,
                "Cannot access accelerator device when none is available.");
  }
  return *state.backend();
}

Result<int> visible_device_count(RuntimeState& state) {
  if (state.config_error()) return *state.config_error();
  Backend* backend = state.backend();
  if (backend == nullptr) return 0;
  const bool bad_fork = state.lazy().in_bad_fork();
  // Initialisation checked the requirement already.
  if (state.lazy().initialized() && !bad_fork) return state.device_count();
  Status configuration = backend->configuration_status();
  if (!configuration.ok()) return configuration;
  int count = backend->fork_safe_device_count();
  if (count < 0) {
    // Note [Fork safety]: the driver's count initialises the driver; never in a bad fork,
    // and only after registering the fork handler.
    if (bad_fork) {
      count = 0;
    } else {
      mark_fork_poisoning(state);
      Result<int> driver_count = backend->driver_device_count();
      if (!driver_count.ok()) return driver_count.status();
      count = *driver_count > 0 ? *driver_count : 0;
    }
  }
  if (count < state.required_devices()) {
    std::string why = backend->visibility_filter();
    if (count == 0 && why.empty()) {
      BackendReport report = backend->report();
      why = report.unavailable_reason;
    }
    return required_devices_error(state.required_devices(), count, why);
  }
  return count;
}

std::string upper_backend_name(const RuntimeState& state) {
  return alloc::upper_device_type(state.backend() != nullptr ? state.backend()->name()
                                                             : "accelerator");
}

void throw_fork_error(RuntimeState& state) {
  std::string name = upper_backend_name(state);
  throw ForkError("Cannot re-initialize " + name + " in forked subprocess. To use " + name +
                  " with multiprocessing, you must use the 'spawn' start method");
}

void mark_fork_poisoning(RuntimeState& state) noexcept { state.lazy().set_fork_poisoning(); }

bool is_initializing_thread(const RuntimeState& state) noexcept { return t_initializing == &state; }

void ensure_initialized(RuntimeState& state) {
  LazyInitState& lazy = state.lazy();
  fail_if_bad_fork(state);
  if (lazy.initialized() || t_initializing == &state) return;
  Backend& backend = require_backend(state);
  // Note [Fork safety]: poison future forks before taking the lock or touching the driver.
  mark_fork_poisoning(state);

  std::lock_guard lock(lazy.init_mutex());
  if (lazy.initialized()) return;
  fail_if_bad_fork(state);

  // A setting that does not work is an error, found before the driver is touched.
  Result<alloc::AllocatorConfig> allocator_config = alloc::allocator_config_from_environment();
  if (!allocator_config.ok()) throw_error(allocator_config.status());
  // The tool the user named is attached before the driver is touched, so it hears of every
  // queue and every allocation (Note [The tool interface] in accel_abi/tool_interface.h).
  Result<const ToolHooks*> tool = tool_hooks_from_environment();
  if (!tool.ok()) throw_error(tool.status());
  if ((*tool)->attached()) {
    state.stream_pools().set_tool(*tool);
    publish_api_tool(*tool);
  }

  Status initialized = backend.initialize();
  const int required = state.required_devices();
  if (!initialized.ok()) {
    // Nothing installed or no device is a shortfall when devices are required.
    if (required > 0 && initialized.kind() == ErrorKind::kUnavailable) {
      throw_error(required_devices_error(required, 0, initialized.message()));
    }
    throw_error(initialized);
  }
  int count = backend.device_count();
  if (count < required) {
    throw_error(required_devices_error(required, count, backend.visibility_filter()));
  }
  state.set_device_count(count);
  state.generators().reset(count);
  if (state.allocator() == nullptr) {
    state.install_allocator(std::make_unique<alloc::CachingAllocator>(
        backend, state.stream_pools(), count, std::move(allocator_config).value(),
        (*tool)->attached() ? *tool : nullptr));
  }

  std::vector<QueuedCall> calls = lazy.calls_for_init();
  const RuntimeState* outer = t_initializing;
  t_initializing = &state;
  struct Restore {
    const RuntimeState* outer;
    ~Restore() { t_initializing = outer; }
  } restore{outer};
  for (const QueuedCall& call : calls) {
    try {
      call.fn();
    } catch (...) {
      std::exception_ptr cause = std::current_exception();
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(cause);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      std::string name = upper_backend_name(state);
      throw DeferredCallError(name + " call failed lazily at initialization with error: " + what +
                                  "\n\n" + name + " call was originally invoked at:\n\n" +
                                  call.origin,
                              call.origin, cause);
    }
  }
  lazy.clear_queue();
  lazy.set_initialized(true);
}

void check_device_ordinal(RuntimeState& state, int index, std::string_view operation) {
  int count = state.device_count();
  if (index >= count) {
    ErrorDetail detail;
    detail.device = index;
    throw Error(ErrorKind::kDriver,
                upper_backend_name(state) + " error: invalid device ordinal (" +
                    std::string(operation) + ": device=" + std::to_string(index) +
                    ", device_count=" + std::to_string(count) + ")",
                detail);
  }
}

void throw_device_index_range_error(long long index) {
  ErrorDetail detail;
  if (index >= INT32_MIN && index <= INT32_MAX) detail.device = static_cast<int>(index);
  throw Error(ErrorKind::kIndex,
              "Device index " + std::to_string(index) + " is out of range for DeviceIndex [0, " +
                  std::to_string(kMaxDeviceIndex) + "]",
              detail);
}

}  // namespace accel::detail
