#include "core/engine.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "core/environment_choice.h"
#include "core/leak_report.h"
#include "core/memory.h"
#include "core/race_policy.h"
#include "core/trace_writer.h"
#include "core/vendor_registry.h"

namespace mockdev::core {
namespace {

// Reads MOCKDEV_MACHINE (a path or a preset; kDefaultPreset when unset or empty) and the
// stream variables. The stderr line blames what is wrong (docs/MACHINE_FILES.md,
// "Configuration errors"): "cannot load the simulated machine: MOCKDEV_MACHINE: ..." for the
// machine, "cannot start the simulated hardware: MOCKDEV_SCHEDULE='...': ..." for a stream
// variable, whose machine is fine.
std::pair<MachineSpec, std::optional<std::string>> machine_from_environment() {
  const std::string_view name = machine_name_from_environment();
  try {
    MachineSpec machine = load_machine(name);
    try {
      apply_stream_environment(machine.streams);
    } catch (const std::invalid_argument& e) {
      MachineSpec empty;
      empty.name = "(invalid)";
      empty.source = std::string(name);
      std::fprintf(stderr, "mockdev: cannot start the simulated hardware: %s\n", e.what());
      return {std::move(empty), std::string(e.what())};
    }
    return {std::move(machine), std::nullopt};
  } catch (const std::exception& e) {
    MachineSpec empty;
    empty.name = "(invalid)";
    empty.source = std::string(name);
    std::string message = std::string("MOCKDEV_MACHINE: ") + e.what();
    std::fprintf(stderr, "mockdev: cannot load the simulated machine: %s\n", message.c_str());
    return {std::move(empty), std::move(message)};
  }
}

// Flushes the observers once at exit, in the process that installed them (a fork child's
// exit must not write its parent's trace again).
pid_t g_observers_pid = 0;
void flush_observers_at_exit() {
  EngineLock lock;
  if (current_pid() != g_observers_pid) return;
  for (auto& o : engine().observers) o->flush();
}

}  // namespace

void apply_stream_environment(StreamSettings& settings) {
  // MOCKDEV_RACES is applied by the observers (core/race_policy.h); a malformed value is a
  // configuration error here, like the other two variables.
  if (std::optional<std::string> error = race_policy_environment_error()) {
    throw std::invalid_argument(*error);
  }
  if (std::optional<std::string> error = leak_policy_environment_error()) {
    throw std::invalid_argument(*error);  // Note [Leak report] in core/leak_report.h
  }
  // An empty value counts as unset, as for every variable the project reads. The values
  // are read by the machine file's own parsers (mockdev/machine.h), as the scenario reader
  // checks them.
  if (const char* v = std::getenv("MOCKDEV_SCHEDULE"); v != nullptr && *v != '\0') {
    const std::optional<StreamSettings::Schedule> schedule = parse_schedule(v);
    if (!schedule) {
      throw std::invalid_argument(
          environment_choice_error("MOCKDEV_SCHEDULE", v, {"eager", "random", "adversarial"}));
    }
    settings.schedule = *schedule;
  }
  if (const char* v = std::getenv("MOCKDEV_SEED"); v != nullptr && *v != '\0') {
    const std::optional<std::uint64_t> seed = parse_seed(v);
    if (!seed) {
      throw std::invalid_argument(std::string("MOCKDEV_SEED='") + v +
                                  "': expected an unsigned decimal integer from 0 to "
                                  "18446744073709551615 (2^64 - 1)");
    }
    settings.seed = *seed;
  }
}

// Created by the first caller of engine() (who holds the lock); never deleted: Note [Leaky
// state].
Engine* detail::g_engine = nullptr;

bool engine_started() { return detail::g_engine != nullptr; }

std::atomic<std::uint64_t> detail::g_quiet_generation{0};

namespace {
// Publishes the quiet generation after a writer of the call faults or the machine (Note
// [Unlocked answers]).
void refresh_quiet_generation() MOCKDEV_REQUIRES(g_engine_mutex) {
  const Engine& e = engine();
  const bool quiet =
      e.call_faults.empty() && e.machine.streams.schedule == StreamSettings::Schedule::kEager;
  detail::g_quiet_generation.store(quiet ? e.generation : 0, std::memory_order_release);
}
}  // namespace

Engine& detail::make_engine() {
  Engine* const instance = new Engine();
  g_engine = instance;
  auto [machine, error] = machine_from_environment();
  install_machine(std::move(machine), std::move(error));
  // MOCKDEV_TRACE is opened by install_machine (make_observers); a path that cannot be
  // written is a setting that does not work (Note [Timeline trace]).
  if (!instance->config_error) {
    if (std::optional<std::string> trace = process_trace_error()) {
      std::fprintf(stderr, "mockdev: cannot start the simulated hardware: %s\n", trace->c_str());
      MachineSpec empty;  // as for every configuration error: no device is installed
      empty.name = "(invalid)";
      empty.source = instance->machine.source;
      install_machine(std::move(empty), std::move(trace));
    }
  }
  return *instance;
}

void install_machine(MachineSpec machine, std::optional<std::string> config_error) {
  Engine& e = engine();
  for (auto& o : e.observers) o->flush();
  e.observers.clear();
  e.machine = std::move(machine);
  e.config_error = std::move(config_error);
  ++e.generation;
  clear_call_counts();
  e.call_faults.clear();
  e.sticky.clear();
  const FaultSchedule& faults = e.machine.faults;
  for (const CallFault& f : faults.calls) {
    e.call_faults.push_back(ActiveCallFault{f.entry_point, f.nth, f.code, 0});
  }
  for (const StickyError& s : faults.sticky) {
    e.sticky.push_back(ActiveSticky{s.api, s.device, s.code, s.after_calls, 0});
  }
  e.init_errors = {};
  for (const ApiRow& row : kApiRows) {
    e.init_errors[static_cast<std::size_t>(row.api)] = faults.*row.init_error;
  }
  e.observers = make_observers(e.machine);
  if (!e.observers.empty() && g_observers_pid == 0) std::atexit(flush_observers_at_exit);
  g_observers_pid = current_pid();
  refresh_quiet_generation();
}

std::optional<int> count_call(std::string_view entry_point, CallCounter* counter) {
  Engine& e = engine();
  std::atomic<std::uint64_t>* count =
      counter != nullptr ? counter->count.load(std::memory_order_relaxed) : nullptr;
  if (count == nullptr) {
    auto it = e.call_counts.find(entry_point);
    if (it == e.call_counts.end()) {
      it = e.call_counts.try_emplace(std::string(entry_point), 0).first;
    }
    count = &it->second;
    if (counter != nullptr) counter->count.store(count, std::memory_order_release);
  }
  // Atomic: an unlocked answer of the same entry point may count concurrently.
  count->fetch_add(1, std::memory_order_relaxed);
  if (e.call_faults.empty()) return std::nullopt;
  std::optional<int> fired;
  for (ActiveCallFault& f : e.call_faults) {
    if (f.entry_point != entry_point) continue;
    ++f.seen;
    if (!fired && (f.nth == 0 || f.seen == f.nth)) fired = f.code;
  }
  return fired;
}

void clear_call_counts() {
  for (auto& [name, count] : engine().call_counts) count.store(0, std::memory_order_relaxed);
}

void add_call_fault(ActiveCallFault fault) {
  engine().call_faults.push_back(std::move(fault));
  refresh_quiet_generation();
}

std::optional<int> touch_device(Api api, int device) {
  std::optional<int> code;
  for (ActiveSticky& s : engine().sticky) {
    if (s.api != api || s.device != device) continue;
    ++s.seen;
    if (!code && s.seen > s.after_calls) code = s.code;
  }
  return code;
}

std::optional<int> init_error(Api api) {
  return engine().init_errors[static_cast<std::size_t>(api)];
}

void clear_faults() {
  Engine& e = engine();
  e.call_faults.clear();
  e.sticky.clear();
  e.init_errors = {};
  clear_memory_faults();  // mockdev/memory.h: the memory faults go too
  refresh_quiet_generation();
}

}  // namespace mockdev::core
