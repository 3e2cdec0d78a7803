#pragma once
// LazyInitState: the lazy-initialisation and fork state machine of one installed runtime
// (one RuntimeState, see runtime.h): the "initialised" and "in bad fork" flags, the init
// lock, and the calls queued by lazy_call() until init() replays them.
//
// Ownership: a RuntimeState owns one. Thread safety: the flags are atomics; the queue has
// its own mutex (a leaf: nothing else is locked or called while it is held, except copying
// the queued callables); init_mutex() serialises initialisation (held while queued calls
// run) and makes lazy_call()'s push atomic with respect to init(). Lock order: init lock,
// then queue lock.
//
// Note [Fork safety]
// A CUDA driver that was initialised in a parent cannot be used in a fork()ed child: the
// real driver answers CUDA_ERROR_NOT_INITIALIZED at best and hangs at worst. Following
// PyTorch (torch/csrc/utils/device_lazy_init.cpp), the runtime "poisons" children instead of
// letting them reach the driver:
//  * The runtime's atfork handlers (runtime.cpp) are installed when the library loads,
//    so no runtime lock can be taken before they exist. prepare takes the state-stack
//    lock and every state's queue lock, and the init lock of states that are not
//    fork-poisoning (and lets each backend take its own); parent releases them; the child
//    releases them too (the forking thread holds them and is the only thread left), so a
//    fork never catches a half-made runtime or a half-pushed lazy_call queue. The registry of
// compiled backends is constant data, and no
//    function-local static with a one-time-initialisation guard is on these paths: a
//    child would wait forever on a guard a vanished thread had entered.
//  * Poisoning is about the attempt, not about success. The first time a runtime
//    *attempts* to initialise, or asks the driver for its device count (which
//    initialises the driver), it marks itself fork-poisoning, BEFORE the driver is
//    touched and before the init lock is taken. The child handler sets in_bad_fork on
//    every poisoning state and publishes a new thread-device generation, so every
//    thread's cached device misses and the next call reaches the bad-fork check.
//  * The fork handlers never wait for a poisoning state's init lock: it is held across the
//    backend's initialisation and the replay of user callbacks (which may fork), so
//    waiting for it could deadlock; in the child such a lock is never taken again (init()
//    throws ForkError first). A state that is not poisoning has no initialisation in
//    progress, and its init lock is only held by lazy_call() around its push, briefly, so
//    prepare waits for it (giving up if the state becomes poisoning meanwhile). Nothing is
//    re-created in place in the child.
//  * In a bad fork, every device-touching call throws ForkError ("Cannot re-initialize
//    CUDA in forked subprocess. ...") before reaching the backend. is_initialized() is
//    false; lazy_call() queues silently (the queue can never drain).
//    device_count()/is_available() keep working through the fork-safe path (NVML), and
//    answer 0 rather than touch the driver when NVML cannot answer.
//  * Backends follow the same rules for what the child may still call (spi/backend.h:
//    fork hooks).

// Note [Deferred calls]
// lazy_call() before initialisation queues (callback, origin) pairs; manual_seed and
// manual_seed_all go to a seed tracker that keeps only the latest of each and the order in
// which they were last requested. init() runs the plain queue in FIFO order, then the
// tracker's calls. A callback that throws aborts init() with DeferredCallError; the
// runtime stays uninitialised and the queue is kept, so the next init() replays *every*
// call again, including those that had succeeded (PyTorch does the same; callbacks are
// expected to be idempotent setters). On success the queue is cleared. While init() runs
// the queue, the initialising thread may call back into the runtime (a thread-local marker
// makes init() return at once there), and a lazy_call() made from a callback runs
// immediately instead of being queued behind the call being replayed.

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accel/lazy_init.h"

namespace accel::detail {

struct QueuedCall {
  std::function<void()> fn;
  std::string origin;  // "file:line in function"
};

class LazyInitState {
 public:
  bool initialized() const noexcept { return initialized_.load(std::memory_order_acquire); }
  void set_initialized(bool value) noexcept {
    initialized_.store(value, std::memory_order_release);
  }

  bool in_bad_fork() const noexcept { return in_bad_fork_.load(std::memory_order_relaxed); }
  void set_in_bad_fork() noexcept { in_bad_fork_.store(true, std::memory_order_relaxed); }

  // True once this runtime attempted to initialise or counted devices through the driver:
  // a child forked from now on is in a bad fork.
  bool fork_poisoning() const noexcept { return fork_poisoning_.load(); }
  void set_fork_poisoning() noexcept { fork_poisoning_.store(true); }

  std::mutex& init_mutex() noexcept { return init_mutex_; }

  // Queues `call` (kPlain: FIFO; kSeed/kSeedAll: replaces the previous one of its kind).
  void enqueue(QueuedCall call, LazyCallKind kind);
  // The calls init() must run, in order: the plain queue, then the seed tracker's.
  std::vector<QueuedCall> calls_for_init() const;
  // Forgets every queued call (after a successful init()).
  void clear_queue();
  // For the atfork handlers only (Note [Fork safety]): prepare takes the init lock of a
  // state that is not fork-poisoning, then the queue lock; the parent and the child (where
  // the forking thread holds them) release what was taken.
  void lock_for_fork() noexcept;
  void unlock_after_fork() noexcept;

 private:
  std::atomic<bool> initialized_{false};
  std::atomic<bool> in_bad_fork_{false};
  std::atomic<bool> fork_poisoning_{false};
  std::mutex init_mutex_;
  bool holds_init_for_fork_ = false;  // set by lock_for_fork(), on the forking thread

  mutable std::mutex queue_mutex_;
  std::vector<QueuedCall> plain_;
  std::optional<QueuedCall> seed_;
  std::optional<QueuedCall> seed_all_;
  bool seed_all_last_ = false;  // which of the two tracked kinds was requested last
};

}  // namespace accel::detail
