// The public lazy-initialisation API (lazy_init.h) over the installed RuntimeState.
#include "accel/lazy_init.h"

#include <mutex>
#include <string>

#include "accel/error.h"
#include "core/runtime.h"

namespace accel {

bool is_initialized() noexcept {
  try {
    detail::RuntimeState& state = detail::current_state();
    return state.lazy().initialized() && !state.lazy().in_bad_fork();
  } catch (...) {
    return false;
  }
}

void init() { detail::ensure_initialized(detail::current_state()); }

bool is_in_bad_fork() noexcept {
  try {
    return detail::current_state().lazy().in_bad_fork();
  } catch (...) {
    return false;
  }
}

void lazy_call(std::function<void()> fn, LazyCallKind kind, CallSite where) {
  detail::RuntimeState& state = detail::current_state();
  if (state.config_error()) detail::throw_error(*state.config_error());
  if (state.backend() == nullptr) {
    throw Error(ErrorKind::kUnavailable,
                "No accelerator is available; lazy_call requires an active accelerator.");
  }
  detail::LazyInitState& lazy = state.lazy();
  std::string origin =
      std::string(where.file) + ":" + std::to_string(where.line) + " in " + where.function;
  if (lazy.in_bad_fork()) {
    // Note [Fork safety]: queue silently; init() will never run it in this process.
    lazy.enqueue(detail::QueuedCall{std::move(fn), std::move(origin)}, kind);
    return;
  }
  if (lazy.initialized() || detail::is_initializing_thread(state)) {
    fn();
    return;
  }
  {
    // Holding the init lock makes queueing atomic with respect to a concurrent init():
    // the call is either replayed by it or sees the runtime initialised below.
    std::lock_guard lock(lazy.init_mutex());
    if (!lazy.initialized()) {
      lazy.enqueue(detail::QueuedCall{std::move(fn), std::move(origin)}, kind);
      return;
    }
  }
  fn();
}

}  // namespace accel
