#pragma once
// The vendor-neutral engine core: the simulated machine and what every API adapter shares
// (device memory and allocations, the fault schedule, call counters). It knows nothing of
// CUDA or NVML: their handles, init state, visibility rules and result codes live in the
// adapters (cuda/, nvml/), which keep their own state next to this one under the same lock
// and reset it when `generation` changes. Queues, events and a virtual clock join here.
//
// Ownership: one Engine object, created on first use and never destroyed (Note [Leaky
// state]). Thread safety: reachable only with the engine lock held (Note [Engine lock] in
// core/engine_lock.h); every function here requires it.
//
// Note [Leaky state]
// A driver is used from atexit handlers, from other libraries' destructors and from
// forked children that call exit(). If this state had a static destructor, a late call
// would touch freed memory, and a child's exit() would run destructors of objects whose
// owning threads do not exist in it. So the state is a heap object reached through a
// function-local pointer that is never deleted; driver objects handed to callers
// (contexts, NVML handles) are never freed either.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine_lock.h"
#include "core/op_observer.h"
#include "mockdev/machine.h"

namespace mockdev::core {

// A call fault, scripted in the machine file or at run time; `seen` counts the calls of
// its entry point since it was installed.
struct ActiveCallFault {
  std::string entry_point;
  std::uint64_t nth = 1;  // 0 = every call
  int code = 0;
  std::uint64_t seen = 0;
};

// A sticky error of one API on one physical device; `seen` counts that API's calls that
// touched the device since it was installed.
struct ActiveSticky {
  Api api = Api::kCuda;
  int device = 0;
  int code = 0;
  std::uint64_t after_calls = 0;
  std::uint64_t seen = 0;
};

struct Engine {
  MachineSpec machine;
  std::optional<std::string> config_error;  // why MOCKDEV_MACHINE could not be loaded
  // Bumped by every install_machine: adapters compare it with the generation their own
  // state was built for and start afresh when it differs (a "power cycle").
  std::uint64_t generation = 0;

  // Every entry point's calls by exported symbol (Note [Counted calls]). A node is never
  // erased, so the address of a count stays valid for the life of the process; atomic,
  // because an entry point answered without the lock counts there too (Note [Unlocked
  // answers]).
  std::map<std::string, std::atomic<std::uint64_t>, std::less<>> call_counts;
  // Written only through install_machine, add_call_fault and clear_faults, which keep the
  // quiet generation (Note [Unlocked answers]) in step with it.
  std::vector<ActiveCallFault> call_faults;
  std::vector<ActiveSticky> sticky;
  std::array<std::optional<int>, kApiCount> init_errors;  // by Api: init returns this code
  // The timeline's observers (core/op_observer.h), made by make_observers at every
  // install_machine; the previous machine's are flushed then, and at process exit.
  std::vector<std::unique_ptr<OpObserver>> observers;
};

// Applies MOCKDEV_SCHEDULE and MOCKDEV_SEED (they override the machine file's `streams:`);
// throws std::invalid_argument naming the variable and its value when one is malformed.
void apply_stream_environment(StreamSettings& settings);

namespace detail {
// The engine once engine() made it (engine.cpp); never deleted: Note [Leaky state].
extern Engine* g_engine;
// Makes the engine and loads the machine: engine()'s first call.
Engine& make_engine() MOCKDEV_REQUIRES(g_engine_mutex);
}  // namespace detail

// The engine, created (and the machine loaded from MOCKDEV_MACHINE) on first use. Inline: an
// entry point asks for it a score of times (every state accessor does), so an out-of-line
// call was a visible share of a cheap entry point's cost (bench/README.md, cudart_bench).
inline Engine& engine() MOCKDEV_REQUIRES(g_engine_mutex) {
  Engine* const e = detail::g_engine;
  return e != nullptr ? *e : detail::make_engine();
}
// Whether engine() has been called in this process (or its parent before a fork): the exit
// work (core/leak_report.h) reads the state only then, so a program that never touched the
// driver does not load a machine while it exits.
bool engine_started() MOCKDEV_REQUIRES(g_engine_mutex);

// Installs `machine` as if it were power-cycled (control::reset): core state and (through
// `generation`) every adapter's state start afresh; `config_error` records why the
// requested machine could not be loaded.
void install_machine(MachineSpec machine, std::optional<std::string> config_error)
    MOCKDEV_REQUIRES(g_engine_mutex);

// Note [Counted calls]
// Every call of every entry point is counted under its exported symbol in
// Engine::call_counts (a map, so control::call_counts lists them by name). Finding the
// name in the map on every call cost as much as a whole cheap entry point (cuCtxGetCurrent,
// which the runtime library asks on each call), so an entry point with a fixed row keeps a
// CallCounter: the address of its count, found once. Map nodes never move and are never
// erased (clear_call_counts sets every count to zero instead, and control::call_counts leaves
// zeros out), so an address, once cached, is valid for the life of the process. The address is
// an atomic so that an entry point answered without the lock (Note [Unlocked answers]) can
// read it there: it is written once, under the lock, and read with acquire.
struct CallCounter {
  std::atomic<std::atomic<std::uint64_t>*> count{nullptr};
};

// Counts one call of `entry_point` (an exported symbol name) and advances the call faults
// of that entry point; returns the code of a fault that fires on this call. `counter`, when
// given, is the entry point's own cache of its count (Note [Counted calls]); it must always be
// passed with the same name.
std::optional<int> count_call(std::string_view entry_point, CallCounter* counter = nullptr)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Sets every call count to zero (Note [Counted calls]: the counts stay where they are).
void clear_call_counts() MOCKDEV_REQUIRES(g_engine_mutex);

// Installs a call fault (control::fail_call): from the next call of its entry point on.
void add_call_fault(ActiveCallFault fault) MOCKDEV_REQUIRES(g_engine_mutex);

// Note [Unlocked answers]
// A real driver answers its cheapest calls (cuCtxGetCurrent) from thread-local state, and the
// runtime library asks that one before every call it makes. Under the engine lock it cost
// about half of a whole cuStreamQuery, so an entry point whose answer is only the
// calling thread's own state may answer without the lock -- when doing so is
// indistinguishable from the locked call. The locked call does, besides reading that state:
// count the call, fire call faults, refuse in a forked child, before init or inside a host
// function, and (random schedule only) run the schedule's progress point. So the unlocked
// answer is allowed only while:
//   - the quiet generation below equals the engine generation the answer was built for: no
//     call fault is installed (of any entry point: nothing to advance or fire) and the
//     schedule is eager (no progress point that draws random numbers, and no progress thread
//     counting calls), published by every writer of those, under the lock;
//   - the adapter's own gate holds (for CUDA: cuInit succeeded for this generation; the
//     thread's state was built for it, which a forked child's never is, as its thread's state
//     starts cleared; not inside a host function);
// and it still counts the call (an atomic increment of its CallCounter's count). Otherwise the
// entry point takes the lock as every other does. A call racing with a writer on another
// thread is ordered before or after that writer's critical section, as with the lock: it
// reads no state that another thread writes.
namespace detail {
extern std::atomic<std::uint64_t> g_quiet_generation;
}  // namespace detail
// The engine generation while no call fault is installed and the schedule is eager; 0
// otherwise. Readable without the lock.
inline std::uint64_t quiet_generation() noexcept {
  return detail::g_quiet_generation.load(std::memory_order_acquire);
}

// A call of `api` that runs on physical `device`: advances that API's sticky errors of the
// device and returns the code of one that is in force.
std::optional<int> touch_device(Api api, int device) MOCKDEV_REQUIRES(g_engine_mutex);

// The init fault scheduled for `api` (the machine file's driver_init / nvml_init).
std::optional<int> init_error(Api api) MOCKDEV_REQUIRES(g_engine_mutex);

// Removes every call fault, sticky error and init fault.
void clear_faults() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
