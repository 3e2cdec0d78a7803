// The fork gate (Note [Fork gate] in fork_gate.h).
#include "spi/fork_gate.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>

namespace accel::detail {

namespace {

// Constant-initialised and never destroyed: usable from the first section and from any
// fork, before or after static destruction.
constinit pthread_mutex_t g_gate = PTHREAD_MUTEX_INITIALIZER;

// How deep this thread is in sections (they nest), and whether this thread's prepare
// handler took the gate in the fork in progress (a thread that forks inside a section
// passes its own gate and must not release it in the child).
thread_local int t_depth = 0;
thread_local bool t_took_for_fork = false;

// Forks whose prepare handler has run, and forks finished (parent or child handler run):
// Note [Fork gate], "Loads during a fork". In a child both read the same.
constinit std::atomic<unsigned long long> g_forks_started{0};
constinit std::atomic<unsigned long long> g_forks_done{0};

void on_prepare() noexcept {
  g_forks_started.fetch_add(1);  // first, before waiting: a section ending now must see it
  t_took_for_fork = t_depth == 0;
  if (t_took_for_fork) pthread_mutex_lock(&g_gate);
}

void release(bool child) noexcept {
  if (child) {
    // The other forks in progress belong to threads the child does not have.
    g_forks_done.store(g_forks_started.load());
  } else {
    g_forks_done.fetch_add(1);
  }
  if (t_took_for_fork) pthread_mutex_unlock(&g_gate);
  t_took_for_fork = false;
}

void on_parent() noexcept { release(false); }
void on_child() noexcept { release(true); }

// After a section: a fork that had begun (its prepare ran) may have listed its handlers
// before the library just loaded registered its own, so it will not run them; the library
// is not used until that fork has finished copying the process.
void wait_for_forks_in_progress() noexcept {
  const unsigned long long started = g_forks_started.load();
  while (g_forks_done.load() < started) {
    pthread_mutex_lock(&g_gate);  // held by the fork until its parent handler
    pthread_mutex_unlock(&g_gate);
    sched_yield();
  }
}

}  // namespace

bool install_fork_gate() noexcept {
  return pthread_atfork(&on_prepare, &on_parent, &on_child) == 0;
}

ForkGateSection::ForkGateSection() noexcept {
  if (t_depth++ == 0) pthread_mutex_lock(&g_gate);
}

ForkGateSection::~ForkGateSection() {
  if (--t_depth > 0) return;
  pthread_mutex_unlock(&g_gate);
  // Every section, not only one that loaded: dlopen() in a section that loaded nothing
  // returns an object another section loaded while a fork was starting.
  wait_for_forks_in_progress();
}

}  // namespace accel::detail
