#include "core/engine_lock.h"

#include <unistd.h>

#include <atomic>

namespace mockdev::core {

// Never destroyed (trivially destructible): Note [Leaky state] in core/engine.h.
constinit EngineMutex g_engine_mutex;

namespace {

// Note [Cached pid]: each API's fork rule runs on every entry point, and getpid() is a real
// system call (glibc stopped caching it in 2.25); on sandboxed kernels it costs
// microseconds, which made a simulated device switch a hundred times slower than the
// runtime around it. The pid changes only across fork(), whose child handler below
// refreshes it. A child made by a raw clone/syscall that skips the atfork handlers would
// see a stale pid; such a child cannot safely use this library anyway. Zero until first
// asked (Note [Constant driver tables] in cuda/cuda_facade.cpp: no load-time construction,
// so a child forked half-way through loading this library computes its own).
constinit std::atomic<pid_t> g_pid{0};

void atfork_prepare() MOCKDEV_NO_THREAD_SAFETY_ANALYSIS { g_engine_mutex.lock(); }
void atfork_parent() MOCKDEV_NO_THREAD_SAFETY_ANALYSIS { g_engine_mutex.unlock(); }
void atfork_child() MOCKDEV_NO_THREAD_SAFETY_ANALYSIS {
  // The forking thread took the mutex in atfork_prepare and is the only thread in the
  // child, so it releases it as the parent does. Unlocking (rather than re-creating the
  // mutex over a locked one) keeps the lock's history consistent for ThreadSanitizer, which
  // otherwise believes the lock is held forever and reports false lock-order inversions.
  g_engine_mutex.unlock();
  g_pid.store(getpid(), std::memory_order_relaxed);
}

// Note [Fork handler registration]: the handlers are registered when the library is
// loaded, not at the first engine call. Registering lazily would call pthread_atfork while
// holding the engine mutex, and a concurrent fork (which holds glibc's atfork lock while it
// runs the prepare handlers, ours included) would then deadlock the two threads.
__attribute__((constructor)) void register_fork_handlers() {
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

}  // namespace

pid_t current_pid() noexcept {
  pid_t pid = g_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    pid = getpid();
    g_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

}  // namespace mockdev::core
