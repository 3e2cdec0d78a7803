#include "engine/engine_state.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>

namespace mockdev::engine {
namespace {

// The mutex lives in raw storage so that the fork child handler can re-create it
// (Note [Fork handling]); it is never destroyed (Note [Leaky state]).
pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

struct ThreadContext {
  CUctx_st* ctx = nullptr;
  std::uint64_t epoch = 0;
};
thread_local ThreadContext t_current;

State* g_state = nullptr;  // set once by state(); read by the fork handlers

// Note [Cached pid]: the pid gate runs on every entry point, and getpid() is a real
// system call (glibc stopped caching it in 2.25); on sandboxed kernels it costs
// microseconds, which made a simulated device switch a hundred times slower than the
// runtime around it. The pid changes only across fork(), whose child handler below
// refreshes it. A child made by a raw clone/syscall that skips the atfork handlers would
// see a stale pid; such a child cannot safely use this library anyway.
pid_t g_pid = getpid();

void atfork_prepare() { pthread_mutex_lock(&g_mutex); }
void atfork_parent() { pthread_mutex_unlock(&g_mutex); }
void atfork_child() {
  // The forking thread held the mutex; no other thread exists in the child.
  pthread_mutex_init(&g_mutex, nullptr);
  g_pid = getpid();
  if (g_state != nullptr && g_state->initialized) g_state->forked_after_init = true;
  t_current = ThreadContext{};
}

// Note [Fork handler registration]: the handlers are registered when the library is
// loaded, not at the first engine call. Registering lazily would call pthread_atfork while
// holding the engine mutex, and a concurrent fork (which holds glibc's atfork lock while it
// runs the prepare handlers, ours included) would then deadlock the two threads.
__attribute__((constructor)) void register_fork_handlers() {
  pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

// Reads MOCKDEV_MACHINE (a path or a preset; kDefaultPreset when unset or empty).
std::pair<MachineSpec, std::optional<std::string>> machine_from_environment() {
  const char* value = std::getenv("MOCKDEV_MACHINE");
  std::string_view name = (value != nullptr && value[0] != '\0') ? value : kDefaultPreset;
  try {
    return {load_machine(name), std::nullopt};
  } catch (const std::exception& e) {
    MachineSpec empty;
    empty.name = "(invalid)";
    empty.source = std::string(name);
    std::string message = std::string("MOCKDEV_MACHINE: ") + e.what();
    std::fprintf(stderr, "mockdev: cannot load the simulated machine: %s\n", message.c_str());
    return {std::move(empty), std::move(message)};
  }
}

}  // namespace

State& state() {
  static State* const instance = [] {
    auto* s = new State();  // never deleted: Note [Leaky state]
    auto [machine, error] = machine_from_environment();
    install_machine(*s, std::move(machine), std::move(error));
    g_state = s;
    return s;
  }();
  return *instance;
}

EngineLock::EngineLock() { pthread_mutex_lock(&g_mutex); }
EngineLock::~EngineLock() { pthread_mutex_unlock(&g_mutex); }

void install_machine(State& s, MachineSpec machine, std::optional<std::string> config_error) {
  s.machine = std::move(machine);
  s.config_error = std::move(config_error);
  s.initialized = false;
  s.init_pid = 0;
  s.forked_after_init = false;
  s.visible.clear();
  // Old context and NVML handle objects stay allocated (callers may still hold them) but
  // leave the registries, so they are rejected from now on.
  s.devices.assign(s.machine.devices.size(), DeviceState{});
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    s.devices[i].nvml_handle = new accel::nvml_abi::nvmlDevice_st{static_cast<int>(i)};
  }
  s.live_contexts.clear();
  s.allocations.clear();
  ++s.epoch;
  s.call_counts.clear();
  s.call_faults.clear();
  s.sticky.clear();
  const FaultSchedule& faults = s.machine.faults;
  for (const CallFault& f : faults.calls) {
    s.call_faults.push_back(ActiveCallFault{f.entry_point, f.nth, f.code, 0});
  }
  for (const StickyError& e : faults.sticky) {
    s.sticky.push_back(ActiveSticky{e.device, e.code, e.after_calls, 0});
  }
  s.driver_init_error = faults.driver_init_error;
  s.nvml_init_error = faults.nvml_init_error;
  s.nvml_pid = 0;
  s.nvml_refs = 0;
}

std::optional<int> count_call(State& s, std::string_view entry_point) {
  auto it = s.call_counts.find(entry_point);
  if (it == s.call_counts.end()) it = s.call_counts.emplace(std::string(entry_point), 0).first;
  ++it->second;
  std::optional<int> fired;
  for (ActiveCallFault& f : s.call_faults) {
    if (f.entry_point != entry_point) continue;
    ++f.seen;
    if (!fired && (f.nth == 0 || f.seen == f.nth)) fired = f.code;
  }
  return fired;
}

std::optional<int> touch_device(State& s, int device) {
  std::optional<int> code;
  for (ActiveSticky& e : s.sticky) {
    if (e.device != device) continue;
    ++e.seen;
    if (!code && e.seen > e.after_calls) code = e.code;
  }
  return code;
}

pid_t current_pid() noexcept { return g_pid; }

bool in_forked_child(const State& s) { return s.initialized && s.init_pid != g_pid; }

bool driver_ready(const State& s) { return s.initialized && s.init_pid == g_pid; }

CUctx_st* current_context(const State& s) {
  return t_current.epoch == s.epoch ? t_current.ctx : nullptr;
}

void set_current_context(const State& s, CUctx_st* ctx) { t_current = ThreadContext{ctx, s.epoch}; }

}  // namespace mockdev::engine
