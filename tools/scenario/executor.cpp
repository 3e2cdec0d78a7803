#include "executor.h"

#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "accel/memory.h"
#include "memory_steps.h"
#include "mockdev/capture.h"
#include "mockdev/control.h"
#include "mockdev/exit.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

// A named thread of the scenario: runs one task at a time, handed over by the main thread,
// which waits for it (steps are sequential; threads differ in whose device they change).
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}
  ~Worker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void run(const std::function<void()>& task) {
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      task_ = [&] {
        try {
          task();
        } catch (...) {
          error = std::current_exception();
        }
      };
      cv_.notify_all();
      cv_.wait(lock, [&] { return !task_; });
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || task_; });
      if (task_) {
        task_();
        task_ = nullptr;
        cv_.notify_all();
      } else if (stop_) {
        return;
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> task_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

std::string kind_of(const std::exception_ptr& error, std::string& message) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    message = e.what();
    return std::string(to_string(e.kind()));
  } catch (const UserError& e) {
    message = e.what();
    return "user";
  } catch (const ChildFailed& e) {
    message = e.what();
    return "child";
  } catch (const std::exception& e) {
    message = e.what();
    return "exception";
  } catch (...) {
    message = "an exception of unknown type";
    return "exception";
  }
}

// `actual` holds `expected`: equal, except that an expected object only constrains the
// keys it names (so `value: {name: Tesla T4}` checks one property).
bool matches(const json& expected, const json& actual) {
  if (expected.is_object() && actual.is_object()) {
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key) || !matches(value, actual.at(key))) return false;
    }
    return true;
  }
  if (expected.is_array() && actual.is_array()) {
    if (expected.size() != actual.size()) return false;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (!matches(expected[i], actual[i])) return false;
    }
    return true;
  }
  if (expected.is_number() && actual.is_number()) {
    if (expected.is_number_float() || actual.is_number_float()) {
      return expected.get<double>() == actual.get<double>();
    }
    // Seeds go beyond int64: compare as unsigned when either is.
    if (expected.is_number_unsigned() || actual.is_number_unsigned()) {
      return expected.get<std::uint64_t>() == actual.get<std::uint64_t>();
    }
    return expected.get<std::int64_t>() == actual.get<std::int64_t>();
  }
  return expected == actual;
}

// The actual value as a mismatch shows it: an object only with the keys the expectation
// names (memory_stats has 122; a report names the ones that were checked), else whole.
std::string shown_value(const json& expected, const json& actual) {
  if (!expected.is_object() || !actual.is_object()) return actual.dump();
  json shown = json::object();
  for (const auto& [key, value] : expected.items()) {
    if (actual.contains(key)) shown[key] = actual.at(key);
  }
  return shown.dump();
}

std::string outcome_text(const Outcome& o) {
  if (!o.ok()) return "error " + *o.error_kind + ": " + o.error_message;
  return o.value.is_null() ? std::string("success") : "success, value " + o.value.dump();
}

class Run;

class ThreadEnv final : public StepEnv {
 public:
  ThreadEnv(Run& run, std::string name) : run_(run), name_(std::move(name)) {}
  std::vector<std::unique_ptr<OpenGuard>>& open_guards() override { return guards_; }
  StreamObjects& stream_objects() override;
  void run_body(const std::vector<Step>& steps) override;
  int run_child(const std::vector<Step>& steps) override;
  std::vector<std::string>& lazy_log() override;
  std::map<std::string, std::uint64_t>& allocations() override;
  std::uint64_t run_seed() const override;
  bool sweeping() const override;
  const std::string& name() const { return name_; }

 private:
  Run& run_;
  std::string name_;
  std::vector<std::unique_ptr<OpenGuard>> guards_;
};

// Which device ids of two snapshots of a thread's current streams differ, as
// "device 1: stream 35 is current, stream 0 was": empty when none.
std::string stream_differences(const std::vector<std::int64_t>& before,
                               const std::vector<std::int64_t>& after) {
  std::string text;
  for (std::size_t d = 0; d < before.size() && d < after.size(); ++d) {
    if (before[d] == after[d]) continue;
    text += std::string(text.empty() ? "" : "; ") + "device " + std::to_string(d) + ": stream " +
            std::to_string(after[d]) + " is current, stream " + std::to_string(before[d]) + " was";
  }
  return text;
}

class Run {
 public:
  Run(const Scenario& scenario, const ExecuteOptions& options, std::ostream& out)
      : scenario_(scenario), options_(options), out_(out) {}

  std::ostream& out() { return out_; }
  const ExecuteOptions& options() const { return options_; }
  std::vector<std::string> lazy_log;
  std::map<std::string, std::uint64_t> allocations;
  std::vector<std::string> violations;
  StreamObjects objects;

  // Runs one step on `env`'s thread (the caller is on it). `body`: an error the step does
  // not expect is rethrown instead of reported (it leaves the enclosing guard).
  void run_step(const Step& step, ThreadEnv& env, bool body) {
    // Scoped guards (`guard`, `stream_guard`) must leave the device and every device's
    // current stream as they found them, whatever a fault did inside.
    const bool guard_check =
        options_.sweep && (step.kind == "guard" || step.kind == "stream_guard");
    std::optional<int> before;
    std::vector<std::int64_t> streams_before;
    if (guard_check) {
      before = probe_device();
      streams_before = thread_stream_snapshot(kSnapshotDevices);
    }
    Outcome o;
    std::exception_ptr error;
    try {
      o.value = step.action(env);
    } catch (const StepFailed&) {
      throw;
    } catch (...) {
      error = std::current_exception();
      o.error_kind = kind_of(error, o.error_message);
    }
    if (guard_check && before) {
      const std::optional<int> after = probe_device();
      if (after && *after != *before) {
        violation(step, env,
                  "the guard left device " + std::to_string(*after) + " current; device " +
                      std::to_string(*before) + " was current before it");
      }
    }
    if (guard_check) {
      const std::string changed =
          stream_differences(streams_before, thread_stream_snapshot(kSnapshotDevices));
      if (!changed.empty()) {
        violation(step, env, "the guard did not restore the thread's current streams: " + changed);
      }
    }
    if (options_.sweep) {
      if (o.error_kind && *o.error_kind == "exception") {
        violation(step, env, "raised something other than accel::Error: " + o.error_message);
      }
      if (error && body && !step.expect.error_kind) std::rethrow_exception(error);
      return;
    }
    if (error && body && !step.expect.error_kind) std::rethrow_exception(error);
    std::vector<std::pair<std::string, std::string>> mismatches = check(step, o);
    if (mismatches.empty()) mismatches = invariant_mismatches();
    if (mismatches.empty()) return;
    out_ << "FAIL " << scenario_.name << (in_child_ ? " (forked child)" : "") << ": step at "
         << step.file << ":" << step.line << " on thread " << env.name() << ": " << step.shown
         << "\n";
    for (const auto& [expected, got] : mismatches) {
      out_ << "  expected: " << expected << "\n  got:      " << got << "\n";
    }
    out_.flush();
    throw StepFailed("step failed");
  }

  // The whole program of a forked child: never returns.
  [[noreturn]] void child_program(const std::vector<Step>& steps, ThreadEnv& env) {
    in_child_ = true;
    int status = 0;
    try {
      for (const Step& step : steps) run_step(step, env, false);
    } catch (const StepFailed&) {
      status = 1;
    } catch (const std::exception& e) {
      out_ << "FAIL " << scenario_.name << " (forked child): " << e.what() << "\n";
      status = 1;
    }
    if (options_.sweep && !violations.empty()) status = 1;
    out_.flush();
    std::fflush(nullptr);
    _exit(status);  // no atexit handlers, no static destructors: the parent owns those
  }

  int execute() {
    std::map<std::string, std::unique_ptr<Worker>> workers;
    std::map<std::string, std::unique_ptr<ThreadEnv>> envs;
    const std::size_t named = scenario_.threads.size() - 1;  // main is not started
    if (named > kMaxScenarioThreads) {
      out_ << "FAIL " << scenario_.name << ": threads: the scenario names " << named
           << " threads, more than the " << kMaxScenarioThreads << " a scenario may have\n";
      return 1;
    }
    std::size_t started = 0;
    for (const std::string& name : scenario_.threads) {
      envs[name] = std::make_unique<ThreadEnv>(*this, name);
      if (name == "main") continue;
      try {
        workers[name] = std::make_unique<Worker>();
        ++started;
      } catch (const std::system_error& e) {
        // The host's limit (RLIMIT_NPROC, memory) is lower than this scenario needs.
        out_ << "FAIL " << scenario_.name << ": threads: cannot start thread '" << name << "' ("
             << started + 1 << " of " << named << "): " << e.what() << "\n";
        return 1;
      }
    }
    auto on_thread = [&](const std::string& name, const std::function<void()>& task) {
      if (name == "main") {
        task();
      } else {
        workers.at(name)->run(task);
      }
    };
    int status = 0;
    try {
      for (const Step& step : scenario_.steps) {
        on_thread(step.thread, [&] { run_step(step, *envs.at(step.thread), false); });
      }
    } catch (const StepFailed&) {
      status = 1;
    }
    const std::map<std::string, std::uint64_t> calls = mockdev::control::call_counts();
    // Guards still open at the end close on their own threads, innermost first; then the
    // thread's current streams must be those from before its outermost open guard.
    for (auto& entry : envs) {  // no structured bindings: clang 14 cannot capture them
      ThreadEnv& env = *entry.second;
      const std::string& name = entry.first;
      on_thread(name, [&] {
        auto& guards = env.open_guards();
        std::vector<std::int64_t> outermost;
        if (!guards.empty()) outermost = guards.front()->streams_at_entry;
        while (!guards.empty()) guards.pop_back();
        if (options_.sweep && !outermost.empty()) {
          const std::string changed =
              stream_differences(outermost, thread_stream_snapshot(kSnapshotDevices));
          if (!changed.empty()) {
            violation("thread " + name +
                      ": closing its open guards at the end did not restore "
                      "its current streams: " +
                      changed);
          }
        }
      });
    }
    if (options_.sweep) {
      finish_sweep(calls, workers, envs, on_thread);
      status = violations.empty() ? 0 : 1;
    }
    workers.clear();
    return status;
  }

 private:
  std::optional<int> probe_device() {
    try {
      return current_device_index();
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  void violation(const Step& step, const ThreadEnv& env, const std::string& what) {
    violations.push_back(step.file + ":" + std::to_string(step.line) + " (" + step.shown +
                         ", thread " + env.name() + "): " + what);
    out_ << "VIOLATION: " << violations.back() << "\n";
  }
  void violation(const std::string& what) {
    violations.push_back(what);
    out_ << "VIOLATION: " << what << "\n";
  }

  // After the steps of a sweep run: clear the fault, then the runtime must be usable again
  // on every thread, no allocation may be left, and the memory statistics must agree.
  template <class OnThread>
  void finish_sweep(const std::map<std::string, std::uint64_t>& calls,
                    std::map<std::string, std::unique_ptr<Worker>>&,
                    std::map<std::string, std::unique_ptr<ThreadEnv>>& envs, OnThread on_thread) {
    mockdev::control::clear_faults();
    // Whether the runtime works again is judged by the runner against the run without a
    // fault (a scenario may leave it unusable on purpose, e.g. ACCEL_BACKEND=none).
    bool usable = true;
    std::string unusable;
    try {
      init();
    } catch (const std::exception& e) {
      usable = false;
      unusable = std::string("init() after the fault was cleared: ") + e.what();
    }
    if (usable) {
      for (auto& entry : envs) {
        const std::string& name = entry.first;
        on_thread(name, [&] {
          try {
            (void)current_device_index();
            (void)get_memory_info();
          } catch (const std::exception& e) {
            violation("thread " + name +
                      " cannot use its device once the fault was cleared: " + e.what());
          }
        });
      }
    }
    // Allocations the scenario still holds are its own: those it named (driver_alloc) and the
    // caching allocator's segments (each one driver allocation; device_buffer and allocate
    // steps hold theirs for the whole run, and what is cached stays cached). Anything beyond
    // is a leak. Expandable segments map pages, not one allocation each: not counted.
    std::size_t held = allocations.size();
    try {
      if (is_allocator_initialized()) {
        for (const SegmentSnapshot& segment : memory_snapshot().segments) {
          if (!segment.is_expandable) ++held;
        }
      }
    } catch (const std::exception& e) {
      violation(std::string("memory_snapshot() once the fault was cleared: ") + e.what());
    }
    const mockdev::control::LiveObjects live = mockdev::control::live_objects();
    std::uint64_t used = 0;
    for (int d = 0; d < static_cast<int>(mockdev::control::machine().devices.size()); ++d) {
      used += mockdev::control::used_bytes(d);
    }
    if (used != live.allocated_bytes) {
      violation("memory statistics disagree: devices report " + std::to_string(used) +
                " bytes in use, live allocations hold " + std::to_string(live.allocated_bytes));
    }
    if (live.allocations > held) {
      violation(std::to_string(live.allocations - held) +
                " driver allocation(s) leaked beyond those the scenario holds");
    }
    // CUDA's primary contexts (Level Zero has none: a Level Zero context is the driver's, one
    // per process, and its device memory is counted above with CUDA's).
    if (live.primary_contexts_active > mockdev::control::machine().devices.size()) {
      violation("more primary contexts than devices: " +
                std::to_string(live.primary_contexts_active));
    }
    json result{{"calls", calls},
                {"usable", usable},
                {"unusable", unusable},
                {"violations", violations.size()}};
    out_ << "SWEEP-RESULT " << result.dump() << "\n";
  }

  std::vector<std::pair<std::string, std::string>> check(const Step& step, const Outcome& o) {
    std::vector<std::pair<std::string, std::string>> bad;
    const Expectation& e = step.expect;
    if (e.error_kind) {
      const std::string want =
          "error " + *e.error_kind +
          (e.message ? " with a message containing \"" + *e.message + "\"" : "");
      if (o.ok() || *o.error_kind != *e.error_kind ||
          (e.message && o.error_message.find(*e.message) == std::string::npos)) {
        bad.emplace_back(want, outcome_text(o));
        return bad;
      }
    } else if (!o.ok()) {
      bad.emplace_back("success", outcome_text(o));
      return bad;
    }
    if (e.value && !matches(*e.value, o.value)) {
      bad.emplace_back("value " + e.value->dump(), shown_value(*e.value, o.value));
    }
    for (const auto& [entry, count] : e.calls) {
      const std::uint64_t n = mockdev::control::call_count(entry);
      if (n != count) {
        bad.emplace_back(entry + " called " + std::to_string(count) + " time(s)",
                         entry + " called " + std::to_string(n) + " time(s)");
      }
    }
    if (e.races && mockdev::control::race_count() != *e.races) {
      bad.emplace_back(std::to_string(*e.races) + " race(s) found",
                       std::to_string(mockdev::control::race_count()) + " race(s) found");
    }
    if (!e.live.empty()) {
      const mockdev::control::LiveObjects live = mockdev::control::live_objects();
      const mockdev::control::CaptureCounts captures = mockdev::control::capture_counts();
      const std::map<std::string, std::uint64_t> actual{
          {"primary_contexts", live.primary_contexts_active},
          {"allocations", live.allocations},
          {"allocated_bytes", live.allocated_bytes},
          {"pending_operations", mockdev::streams::stats().pending},
          {"captures", captures.sequences},
          {"graphs", captures.graphs},
          {"graph_execs", captures.execs}};
      for (const auto& [key, count] : e.live) {
        if (actual.at(key) != count) {
          bad.emplace_back("live " + key + " " + std::to_string(count),
                           "live " + key + " " + std::to_string(actual.at(key)));
        }
      }
    }
    for (const auto& [device, bytes] : e.used_bytes) {
      const std::uint64_t used = mockdev::control::used_bytes(device);
      if (used != bytes) {
        bad.emplace_back(
            "device " + std::to_string(device) + " using " + std::to_string(bytes) + " bytes",
            "device " + std::to_string(device) + " using " + std::to_string(used) + " bytes");
      }
    }
    return bad;
  }

  // `invariants: memory_stats`: the allocator's invariants after the step, one line each.
  std::vector<std::pair<std::string, std::string>> invariant_mismatches() {
    std::vector<std::pair<std::string, std::string>> bad;
    if (scenario_.invariants.empty()) return bad;
    for (const std::string& v : check_memory_invariants()) {
      bad.emplace_back("the allocator's invariants hold (invariants: memory_stats)", v);
    }
    return bad;
  }

  const Scenario& scenario_;
  const ExecuteOptions& options_;
  std::ostream& out_;
  bool in_child_ = false;
};

void ThreadEnv::run_body(const std::vector<Step>& steps) {
  for (const Step& step : steps) run_.run_step(step, *this, true);
}

int ThreadEnv::run_child(const std::vector<Step>& steps) {
  run_.out().flush();
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw UserError("fork failed");
  if (pid == 0) {
    // The child has only this thread; its steps all run here.
    // The parent's open guards are not the child's to restore: leak them (_exit follows).
    for (auto& guard : guards_) {
      (void)guard->device.release();
      (void)guard->stream.release();
    }
    guards_.clear();
    run_.child_program(steps, *this);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
}

std::vector<std::string>& ThreadEnv::lazy_log() { return run_.lazy_log; }
std::map<std::string, std::uint64_t>& ThreadEnv::allocations() { return run_.allocations; }
StreamObjects& ThreadEnv::stream_objects() { return run_.objects; }
std::uint64_t ThreadEnv::run_seed() const { return run_.options().seed; }
bool ThreadEnv::sweeping() const { return run_.options().sweep; }

void apply_environment(const Scenario& scenario, std::uint64_t seed) {
  // A host's own settings must not change what the scenario sees: the variables a scenario
  // may set start unset (the driver variables the runner set are kept unless overridden).
  for (const char* name :
       {"CUDA_VISIBLE_DEVICES", "ACCEL_BACKEND", "ACCEL_REQUIRE_DEVICES", "MOCKDEV_SCHEDULE",
        "MOCKDEV_SEED", "MOCKDEV_RACES", "ZE_AFFINITY_MASK", "ZE_FLAT_DEVICE_HIERARCHY"}) {
    unsetenv(name);
  }
  // The run seed (--seed) seeds the stream schedule unless the scenario fixes one (in its
  // environment or its machine's streams.seed), so a scenario that depends on one
  // interleaving keeps it.
  if (seed != 0 && !scenario.environment.count("MOCKDEV_SEED") &&
      scenario.machine.streams.seed == 0) {
    setenv("MOCKDEV_SEED", std::to_string(seed).c_str(), 1);
  }
  if (scenario.machine_env.empty()) {
    unsetenv("MOCKDEV_MACHINE");
  } else {
    setenv("MOCKDEV_MACHINE", scenario.machine_env.c_str(), 1);
  }
  for (const auto& [name, value] : scenario.environment) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
}

}  // namespace

int execute(const Scenario& scenario, const ExecuteOptions& options, std::ostream& out) {
  apply_environment(scenario, options.seed);
  // control::reset installs the machine as given: the stream variables that the machine
  // would take from the environment when loaded from it are applied here (the reader
  // checked their values).
  mockdev::MachineSpec machine = scenario.machine;
  if (const char* v = std::getenv("MOCKDEV_SCHEDULE")) {
    const std::string text(v);
    machine.streams.schedule = text == "random" ? mockdev::StreamSettings::Schedule::kRandom
                               : text == "adversarial"
                                   ? mockdev::StreamSettings::Schedule::kAdversarial
                                   : mockdev::StreamSettings::Schedule::kEager;
  }
  if (const char* v = std::getenv("MOCKDEV_SEED"))
    machine.streams.seed = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("MOCKDEV_RACES")) {
    if (const auto policy = mockdev::parse_race_policy(v)) machine.streams.races = *policy;
  }
  mockdev::control::reset(machine);
  if (options.fault) {
    mockdev::control::fail_call(options.fault->entry_point, options.fault->nth,
                                options.fault->code);
  }
  int status = 0;
  {
    Run run(scenario, options, out);
    status = run.execute();
  }  // the run's streams, events and graphs are destroyed: the program's last driver calls
  out.flush();
  // The caller leaves with _exit(), which skips the simulated hardware's exit work: do it
  // now (the trace, the race policy `fail`), and fail a run whose trace was not written
  // rather than pass with the warning hidden in its output.
  status = mockdev::control::finish_process(status);
  if (const std::optional<std::string> error = mockdev::control::trace_error()) {
    out << "FAIL " << scenario.name << ": the trace was not written: " << *error << "\n";
    if (status == 0) status = 1;
  }
  out.flush();
  return status;
}

}  // namespace accel::scenario
