#pragma once
// The one engine lock, and the process facts that change only across fork (the cached pid).
//
// Note [Engine lock]
// All engine state, the core's and every API adapter's, is guarded by one mutex: a driver
// call changes core and adapter state together (cuMemFree frees core memory and checks a
// CUDA context), and one lock keeps every call atomic with no lock order to get wrong.
// State is reachable only through accessors annotated MOCKDEV_REQUIRES(g_engine_mutex)
// (core::engine(), cuda::cuda_state(), nvml::nvml_state()), so clang's -Wthread-safety
// rejects any access without an EngineLock in scope. The mutex is never destroyed (Note
// [Leaky state] in core/engine.h) and is released by the forking thread in a child (Note
// [Fork handling]).
//
// Note [Fork handling]
// pthread_atfork(prepare = lock, parent = unlock, child = unlock: the forking thread holds
// it and is the child's only thread), registered
// when libmockdev.so is loaded (Note [Fork handler registration] in engine_lock.cpp): a fork
// while another thread is inside the engine waits until that call finishes, so the child
// never inherits a mutex held by a thread that does not exist there. The child handler also
// refreshes the cached pid, which is what each API's fork rule compares against (the CUDA
// adapter's pid gate: Note [Driver call order] in cuda/driver_api.h).

#include <pthread.h>
#include <sys/types.h>

#include "core/thread_annotations.h"

namespace mockdev::core {

// A pthread mutex with clang capability annotations. Constant-initialised and trivially
// destructible, so it works before any constructor ran and after every destructor ran.
class MOCKDEV_CAPABILITY("mutex") EngineMutex {
 public:
  constexpr EngineMutex() = default;
  EngineMutex(const EngineMutex&) = delete;
  EngineMutex& operator=(const EngineMutex&) = delete;
  void lock() MOCKDEV_ACQUIRE() { pthread_mutex_lock(&mutex_); }
  void unlock() MOCKDEV_RELEASE() { pthread_mutex_unlock(&mutex_); }
  // For exit work that must not wait forever on a thread stuck holding it.
  bool try_lock() MOCKDEV_TRY_ACQUIRE(true) { return pthread_mutex_trylock(&mutex_) == 0; }
  // Waits on `cv` with the mutex released, and holds it again on return (the timeline's
  // host waits for a host function running on another thread: core/timeline.cpp).
  void wait(pthread_cond_t* cv) MOCKDEV_REQUIRES(this) { pthread_cond_wait(cv, &mutex_); }

 private:
  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
};

extern EngineMutex g_engine_mutex;

// Holds the engine mutex for its lifetime.
class MOCKDEV_SCOPED_CAPABILITY EngineLock {
 public:
  EngineLock() MOCKDEV_ACQUIRE(g_engine_mutex) { g_engine_mutex.lock(); }
  ~EngineLock() MOCKDEV_RELEASE() { g_engine_mutex.unlock(); }
  EngineLock(const EngineLock&) = delete;
  EngineLock& operator=(const EngineLock&) = delete;
};

// This process's id, cached: Note [Cached pid] in engine_lock.cpp. Lock-free.
pid_t current_pid() noexcept;

}  // namespace mockdev::core
