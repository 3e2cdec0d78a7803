#pragma once
// Lazy initialisation, deferred calls and fork safety (torch.accelerator's "Lazy
// Initialization and Fork Safety").
//
// The runtime comes up on the first call that needs a device, not at load time, so a
// program may query device_count() and then fork() safely. Work requested before that
// (seeding, RNG state) is queued with lazy_call() and replayed, in order, by init().
// The first attempt to initialise marks the runtime fork-poisoning (its pthread_atfork
// handlers are installed when the library loads); a child forked after that is "in a bad
// fork" and every device-touching call throws ForkError before reaching the driver. A fork
// while other threads are inside the runtime (creating it, queueing lazy_calls) leaves the
// child a consistent runtime. See docs/decisions/008-fork-poisoning-at-first-attempt.md and
// docs/decisions/028-atfork-handlers-at-load.md (installed in share/doc/accel/).
// Thread safety: all functions are safe from any thread; init() runs once, other threads
// wait for it; a callback run by init() may itself call runtime functions.

#include <functional>

#include "accel/call_site.h"

namespace accel {

// True once init() has succeeded in this process (false in a bad-fork child).
bool is_initialized() noexcept;

// Initialises the runtime: brings the driver up, then runs the queued calls in FIFO order
// (the seed tracker's calls last). Idempotent. Throws ForkError in a bad-fork child,
// accel::Error when the driver or devices are unavailable, DeferredCallError when a queued
// call throws; after a failure the runtime stays uninitialised and the queue is kept, so
// the next init() replays it.
void init();

// True in a child forked after the parent initialised the runtime.
bool is_in_bad_fork() noexcept;

enum class LazyCallKind {
  kPlain,    // queued FIFO
  kSeed,     // a manual_seed: only the latest one survives
  kSeedAll,  // a manual_seed_all: only the latest one survives
};

// Runs `fn` now when the runtime is initialised; otherwise queues it for init().
// kSeed / kSeedAll calls are kept by the seed tracker: only the most recent of each
// survives, in the order they were last requested, after all plain calls. `where`
// names the caller in a DeferredCallError. Throws kUnavailable when there is no
// accelerator ("No accelerator is available; lazy_call requires an active accelerator.").
void lazy_call(std::function<void()> fn, LazyCallKind kind = LazyCallKind::kPlain,
               CallSite where = CallSite::current());

}  // namespace accel
