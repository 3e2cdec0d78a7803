// The installed-runtime stack, lazy initialisation and the fork child handler.
#include "core/runtime.h"

#include <pthread.h>

#include <cctype>
#include <exception>
#include <mutex>

#include "core/backend_registry.h"

namespace accel::detail {

namespace {

std::atomic<std::uint64_t> g_next_generation{1};
using runtime_internal::g_top;
std::mutex& stack_mutex() {
  static std::mutex* const mutex = new std::mutex();
  return *mutex;
}

std::atomic<bool> g_fork_handler_installed{false};

// The state whose queued calls this thread is running (Note [Deferred calls]).
thread_local const RuntimeState* t_initializing = nullptr;

void on_fork_child() noexcept {
  // Note [Fork safety]: only the forking thread exists here; touch atomics and re-create
  // mutexes, nothing else.
  for (RuntimeState* state = g_top.load(); state != nullptr; state = state->previous()) {
    if (state->lazy().fork_poisoning()) state->lazy().set_in_bad_fork();
    state->lazy().reset_mutexes_in_child();
  }
  new (&stack_mutex()) std::mutex();
}

}  // namespace

namespace runtime_internal {

std::atomic<RuntimeState*> g_top{nullptr};

RuntimeState* create_default_state() {
  static std::once_flag once;
  std::call_once(once, [] {
    BackendSelection selection = select_backend_from_environment();
    auto* state = new RuntimeState(std::move(selection.backend), std::move(selection.error));
    std::lock_guard lock(stack_mutex());
    // An override installed before first use sits on top; the default goes underneath.
    RuntimeState* top = g_top.load();
    if (top == nullptr) {
      g_top.store(state, std::memory_order_release);
    } else {
      RuntimeState* bottom = top;
      while (bottom->previous() != nullptr) bottom = bottom->previous();
      bottom->set_previous(state);
    }
  });
  return g_top.load(std::memory_order_acquire);
}

}  // namespace runtime_internal

namespace {

std::string origin_text(const QueuedCall& call) { return call.origin; }

}  // namespace

RuntimeState::RuntimeState(std::unique_ptr<Backend> backend, std::optional<Status> config_error)
    : backend_(std::move(backend)),
      config_error_(std::move(config_error)),
      generation_(g_next_generation.fetch_add(1)) {}

void RuntimeState::renew_generation() noexcept {
  generation_.store(g_next_generation.fetch_add(1), std::memory_order_relaxed);
}

RuntimeState* push_state(std::unique_ptr<RuntimeState> state) {
  current_state();  // the default state goes underneath every override
  std::lock_guard lock(stack_mutex());
  RuntimeState* raw = state.release();
  raw->set_previous(g_top.load());
  g_top.store(raw, std::memory_order_release);
  return raw;
}

void pop_state(RuntimeState* state) {
  {
    std::lock_guard lock(stack_mutex());
    if (g_top.load() != state) std::terminate();  // overrides must nest
    RuntimeState* previous = state->previous();
    previous->renew_generation();
    g_top.store(previous, std::memory_order_release);
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

std::string upper_backend_name(const RuntimeState& state) {
  std::string name = state.backend() != nullptr ? state.backend()->name() : "accelerator";
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

void throw_fork_error(RuntimeState& state) {
  std::string name = upper_backend_name(state);
  throw ForkError("Cannot re-initialize " + name + " in forked subprocess. To use " + name +
                  " with multiprocessing, you must use the 'spawn' start method");
}

void register_fork_handler(RuntimeState& state) noexcept {
  state.lazy().set_fork_poisoning();
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork(nullptr, nullptr, &on_fork_child);
    g_fork_handler_installed.store(true);
  });
}

bool fork_handler_installed() noexcept { return g_fork_handler_installed.load(); }

void run_fork_child_handler_for_testing() noexcept { on_fork_child(); }

bool is_initializing_thread(const RuntimeState& state) noexcept { return t_initializing == &state; }

void ensure_initialized(RuntimeState& state) {
  LazyInitState& lazy = state.lazy();
  fail_if_bad_fork(state);
  if (lazy.initialized() || t_initializing == &state) return;
  Backend& backend = require_backend(state);
  // Note [Fork safety]: poison future forks before taking the lock or touching the driver.
  register_fork_handler(state);

  std::lock_guard lock(lazy.init_mutex());
  if (lazy.initialized()) return;
  fail_if_bad_fork(state);

  check(backend.initialize());
  int count = backend.device_count();
  state.set_device_count(count);
  state.generators().reset(count);

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
                                  origin_text(call),
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
