#pragma once
// The fork gate: first-use steps that change process state the runtime does not own run
// as sections a fork waits for.
//
// Note [Fork gate]
// fork() copies a process in whatever state its other threads left it. The runtime's own
// locks and queues are covered by its atfork handlers (Note [Fork safety] in runtime.cpp),
// but loading a driver file changes state that belongs to the dynamic linker and to the
// library: a child forked while another thread was inside dlopen() has the library
// "loaded" with its load-time state half-built, and a later dlopen() in the child returns
// it as it is. So every dlopen() the runtime makes — the CUDA driver, NVML, the Level Zero
// loader — runs as a ForkGateSection (backends/common/shared_object.cpp). Sections
// exclude each other (they are a process's first uses, a handful of calls) and forks: the
// gate's atfork prepare handler takes the same lock, so fork() waits until the load in
// progress ends, and no load starts until the copy is made.
//
// A section holds nothing but dlopen(): never a driver call. A fork's prepare handlers may
// include a driver's that takes the driver's own lock (the simulated drivers' engine lock,
// mockdev/src/core/engine_lock.h), and when that handler runs before the gate's (glibc runs
// them in the reverse order of registration, and the driver registered after the runtime)
// the fork holds the driver's lock while it waits for the gate; a section that called the
// driver would then wait for the fork, and neither could go on. For the same reason the
// Level Zero loader's first zeInit, which loads drivers itself, is not a section: the
// runtime calls it only while initialising, so a fork during it gives a child in a bad
// fork, which never calls Level Zero, and LevelZeroBackend keeps its probe away from it.
// The fork-safe Sysman count's zesInit on a loader that has it (1.9 and newer) is the open
// case: a fork during that first call copies the loader half-initialised into a child that
// may go on to use it [inferred; the installed loader, 1.8, has no zesInit].
//
// Loads during a fork. glibc lists the handlers to run when fork() starts; one registered
// later is not run for that fork. A fork that started while a section was loading a
// library waits for the section in its prepare handler, but the library's own handlers are
// not in its list: had the loading thread gone on to call the library (taking the
// simulated driver's engine lock, say), the child would inherit that lock held. So the
// gate's prepare counts the forks it lets start, and every section waits, after it ends,
// until every fork that had started by then has finished (every section: one whose
// dlopen() found the file already loaded may be handing out a library another section
// loaded during that fork). What stays open: a fork whose list was made before the load
// but whose prepare handler had not yet run when the whole section ended (the forking
// thread preempted between glibc's list and its first handler) [inferred].
//
// A thread that forks inside a section (none does in the runtime) passes its own gate.

namespace accel::detail {

// Holds the gate for its lifetime; nests on one thread. Never throws.
class ForkGateSection {
 public:
  ForkGateSection() noexcept;
  ~ForkGateSection();
  ForkGateSection(const ForkGateSection&) = delete;
  ForkGateSection& operator=(const ForkGateSection&) = delete;
};

// Registers the gate's atfork handlers; called when the runtime is loaded (runtime.cpp),
// before any section can open. Returns pthread_atfork's success.
bool install_fork_gate() noexcept;

}  // namespace accel::detail
