// The fork gate (Note [Fork gate] in fork_gate.h).
#include "core/fork_gate.h"

#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>

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
thread_local int t_handler_runs = 0;
thread_local bool t_took_for_fork = false;

// Forks whose prepare handler has run, and forks finished (parent or child handler run):
// Note [Fork gate], "Loads during a fork". In a child both read the same.
constinit std::atomic<unsigned long long> g_forks_started{0};
constinit std::atomic<unsigned long long> g_forks_done{0};

// The runtime's own forks waiting for the sections in progress (fork_between_loads): no
// section starts while one is waiting.
constinit std::atomic<int> g_own_forks{0};

// dl_iterate_phdr's count of objects loaded so far when the handlers were last registered.
// Read and written with the gate held.
unsigned long long g_adds_at_registration = 0;

unsigned long long loads_so_far() noexcept {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;  // the first object carries the process-wide counter
      },
      &adds);
  return adds;
}

void on_prepare() noexcept {
  // Registered once per section that loaded something: the first run of this fork takes
  // the gate, the later ones only count (Note [Fork gate], "Handler order").
  if (t_handler_runs++ > 0) return;
  g_forks_started.fetch_add(1);  // first, before waiting: a section ending now must see it
  t_took_for_fork = t_depth == 0;
  if (t_took_for_fork) pthread_mutex_lock(&g_gate);
}

void release(bool child) noexcept {
  if (--t_handler_runs > 0) return;
  if (child) {
    // The other forks in progress, and the runtime's own forks waiting, belong to threads
    // the child does not have.
    g_forks_done.store(g_forks_started.load());
    g_own_forks.store(0);
  } else {
    g_forks_done.fetch_add(1);
  }
  if (t_took_for_fork) pthread_mutex_unlock(&g_gate);
  t_took_for_fork = false;
}

void on_parent() noexcept { release(false); }
void on_child() noexcept { release(true); }

bool register_handlers() noexcept {
  return pthread_atfork(&on_prepare, &on_parent, &on_child) == 0;
}

// After a section: a fork that had begun (its prepare ran) may have
// listed its handlers before the objects registered theirs, so it will not run them; the
// objects are not used until that fork has finished copying the process.
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
  g_adds_at_registration = loads_so_far();
  return register_handlers();
}

pid_t fork_between_loads() noexcept {
  // Not holding the gate across fork(): the fork's prepare handlers may include a driver's
  // that takes a lock some other fork, waiting for the gate, already holds.
  g_own_forks.fetch_add(1);
  if (t_depth == 0) {
    pthread_mutex_lock(&g_gate);  // the section in progress ends; no other starts
    pthread_mutex_unlock(&g_gate);
  }
  const pid_t pid = fork();
  const int saved = errno;
  if (pid == 0) {
    g_own_forks.store(0);  // the other waiting threads are not in the child
  } else {
    g_own_forks.fetch_sub(1);
  }
  errno = saved;
  return pid;
}

ForkGateSection::ForkGateSection() noexcept {
  if (t_depth++ > 0) return;
  for (;;) {
    while (g_own_forks.load() > 0) sched_yield();
    pthread_mutex_lock(&g_gate);
    if (g_own_forks.load() == 0) return;
    pthread_mutex_unlock(&g_gate);
  }
}

ForkGateSection::~ForkGateSection() {
  if (--t_depth > 0) return;
  // Still holding the gate: a section that loaded a library puts the gate's prepare
  // handler ahead of the library's before another section can open.
  const unsigned long long adds = loads_so_far();
  if (adds != g_adds_at_registration) {
    g_adds_at_registration = adds;
    (void)register_handlers();
  }
  pthread_mutex_unlock(&g_gate);
  // Every section, not only one that loaded: dlopen() in a section that loaded nothing
  // returns an object another section loaded while a fork was starting.
  wait_for_forks_in_progress();
}

}  // namespace accel::detail
